"""A voice message heard (docs/voice.md): the limits checked before any download, the
recording fetched into memory (one file per update, never to disk), transcribed;
every way it can fail is an honest reply that asks to type or resend.

The pipeline knows nothing of Telegram: the bot hands over what the message says of
the recording (a ``Clip``) and how to fetch it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from pipeline.language.texts import Texts
from pipeline.speech.transcribe import Audio, Failure, Transcriber, TranscriptionFailed
from pipeline.types import Reply

__all__ = ["BOT_API_DOWNLOAD_LIMIT", "Clip", "ClipTooBig", "Heard", "Listener", "heard_reply"]

logger = logging.getLogger(__name__)

#: The cloud Bot API hands a bot files up to 20 MB (getFile); a larger one never comes.
BOT_API_DOWNLOAD_LIMIT = 20 * 1024 * 1024
#: What of the transcript the reply quotes: enough to see a mishearing.
QUOTE_CHARS = 160
#: A transcript is a message: no longer than Telegram lets one be.
MAX_TEXT = 4096

Fetch = Callable[[], Awaitable[bytes]]


@dataclass(frozen=True, slots=True)
class Clip:
    """A recording as its message describes it (Telegram's voice, audio, video_note)."""

    seconds: int | None
    size: int | None
    filename: str
    content_type: str = "application/octet-stream"


class ClipTooBig(Exception):
    """The Bot API would not hand the file over: it is over its download limit."""


@dataclass(frozen=True, slots=True)
class Heard:
    """The transcript, or (``reply``) why there is none."""

    text: str = ""
    reply: Reply | None = None


class Listener:
    def __init__(
        self,
        transcriber: Transcriber | None,
        *,
        max_seconds: int = 180,
        max_bytes: int = BOT_API_DOWNLOAD_LIMIT,
    ) -> None:
        self.transcriber = transcriber
        self.max_seconds = max_seconds
        self.max_bytes = max_bytes

    def refusal(self, clip: Clip, texts: Texts, *, operator: bool = False) -> Reply | None:
        """The reply to a recording that is not even downloaded (no transcription
        configured, too long, too large); None for one to hear."""
        if self.transcriber is None:
            text = texts.text("voice.off")
            if operator:
                text = f"{text}\n\n{texts.text('voice.off_operator')}"
            return Reply(text)
        if clip.seconds is not None and clip.seconds > self.max_seconds:
            return Reply(
                texts.text(
                    "voice.too_long",
                    length=_minutes(clip.seconds),
                    limit=_minutes(self.max_seconds),
                )
            )
        if clip.size is not None and clip.size > self.max_bytes:
            return self._too_big(clip.size, texts)
        return None

    async def hear(
        self, clip: Clip, fetch: Fetch, texts: Texts, *, operator: bool = False
    ) -> Heard:
        refused = self.refusal(clip, texts, operator=operator)
        if refused is not None or self.transcriber is None:
            return Heard(reply=refused)
        try:
            data = await fetch()
        except ClipTooBig:
            return Heard(reply=self._too_big(clip.size, texts))
        except Exception:
            logger.warning("voice: download failed", exc_info=True)
            return Heard(reply=Reply(texts.text("voice.download_failed")))
        if len(data) > self.max_bytes:
            return Heard(reply=self._too_big(len(data), texts))
        audio = Audio(clip.filename, data, clip.content_type)
        try:
            text = await self.transcriber.transcribe(audio, texts.lang)
        except TranscriptionFailed as exc:
            logger.warning("voice: transcription failed (%s)", exc)
            key = "voice.timeout" if exc.failure is Failure.TIMEOUT else "voice.failed"
            return Heard(reply=Reply(texts.text(key)))
        finally:
            del audio, data  # the recording goes as soon as it is heard
        if not text.strip():
            return Heard(reply=Reply(texts.text("voice.empty")))
        return Heard(text=text.strip()[:MAX_TEXT])

    def _too_big(self, size: int | None, texts: Texts) -> Reply:
        megabytes = texts.number(round(size / 2**20, 1)) if size else "?"
        limit = texts.number(round(self.max_bytes / 2**20, 1))
        return Reply(texts.text("voice.too_big", size=megabytes, limit=limit))


def heard_reply(texts: Texts, heard: str, reply: Reply) -> Reply:
    """The reply to a transcript, opened by what Stepan heard, short and quoted, so a
    mishearing is seen before anything it led to (a journal card says it came so)."""
    quote = heard if len(heard) <= QUOTE_CHARS else _cut(heard)
    prefix = texts.text("voice.heard", text=quote)
    return replace(reply, text=f"{prefix}\n\n{reply.text}" if reply.text else prefix)


def _cut(text: str) -> str:
    cut = text[:QUOTE_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return f"{cut}…"


def _minutes(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"
