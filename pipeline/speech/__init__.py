"""Voice messages: heard through an OpenAI-compatible transcription endpoint, then
handled as the typed message they say (docs/voice.md)."""

from pipeline.speech.listen import Clip, ClipTooBig, Heard, Listener, heard_reply
from pipeline.speech.transcribe import Audio, Failure, SpeechSettings, Transcriber

__all__ = [
    "Audio",
    "Clip",
    "ClipTooBig",
    "Failure",
    "Heard",
    "Listener",
    "SpeechSettings",
    "Transcriber",
    "heard_reply",
]
