"""An OpenAI-compatible transcription endpoint: ``POST {base}/audio/transcriptions``.

The request is OpenAI's ``createTranscription`` (multipart/form-data: ``file``,
``model``, ``language`` as ISO-639-1, ``response_format=json``); the answer is
``{"text": ...}``. A refusal is OpenAI's error body, ``{"error": {"message", "type",
"param", "code"}}``, with 400 (a file it cannot read, a missing field), 401 (a bad
key), 413 (over its size limit) or 5xx. The same contract is served by hosted APIs
(OpenAI, Groq...) and self-hosted faster-whisper servers (speaches); docs/voice.md.

One try, within ``timeout_s``: a farmer waiting in the chat is told and can resend,
a retry would only double the wait. The key goes in the Authorization header and
nowhere else; an error message that echoes it is scrubbed before it is logged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

import httpx
from pydantic import SecretStr

__all__ = ["Audio", "Failure", "SpeechSettings", "Transcriber", "TranscriptionFailed"]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class SpeechSettings:
    base_url: str  #: an OpenAI-style base, e.g. http://host:8000/v1
    model: str
    api_key: SecretStr | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S


@dataclass(frozen=True, slots=True)
class Audio:
    """One recording, in memory (never written to disk)."""

    filename: str  #: the endpoint reads the format from its extension (voice.oga, note.mp4)
    data: bytes
    content_type: str = "application/octet-stream"


class Failure(StrEnum):
    TIMEOUT = "timeout"  #: no answer within the time given
    UNREACHABLE = "unreachable"  #: no connection
    REFUSED = "refused"  #: 400/415/422: the endpoint cannot read this audio (or the request)
    AUTH = "auth"  #: 401/403: the key
    TOO_LARGE = "too_large"  #: 413
    SERVER = "server"  #: 5xx or another status
    UNREADABLE = "unreadable"  #: 200 with a body that is not a transcription


class TranscriptionFailed(Exception):
    def __init__(self, failure: Failure, detail: str = "") -> None:
        super().__init__(f"{failure.value}: {detail}" if detail else failure.value)
        self.failure = failure


_BY_STATUS = {400: Failure.REFUSED, 401: Failure.AUTH, 403: Failure.AUTH, 413: Failure.TOO_LARGE,
              415: Failure.REFUSED, 422: Failure.REFUSED}  # fmt: skip


class Transcriber:
    def __init__(self, http: httpx.AsyncClient, settings: SpeechSettings) -> None:
        self._http = http
        self.settings = settings
        self.url = f"{settings.base_url.rstrip('/')}/audio/transcriptions"

    async def transcribe(self, audio: Audio, language: str | None = None) -> str:
        """The text heard in ``audio`` ("" when the endpoint heard nothing); raises
        TranscriptionFailed."""
        data = {"model": self.settings.model, "response_format": "json"}
        if language:
            data["language"] = language
        files = {"file": (audio.filename, audio.data, audio.content_type)}
        headers = {}
        if self.settings.api_key is not None:
            headers["Authorization"] = f"Bearer {self.settings.api_key.get_secret_value()}"
        try:
            response = await self._http.post(
                self.url, data=data, files=files, headers=headers, timeout=self.settings.timeout_s
            )
        except httpx.TimeoutException as exc:
            raise TranscriptionFailed(Failure.TIMEOUT, type(exc).__name__) from None
        except httpx.HTTPError as exc:
            raise TranscriptionFailed(Failure.UNREACHABLE, type(exc).__name__) from None
        if response.status_code != 200:
            failure = _BY_STATUS.get(response.status_code, Failure.SERVER)
            raise TranscriptionFailed(failure, self._error_of(response))
        return _text_of(response)

    def _error_of(self, response: httpx.Response) -> str:
        """``status type/code: message`` of an OpenAI-style error, the key scrubbed."""
        try:
            error = response.json().get("error") or {}
            detail = f"{error.get('type')}/{error.get('code')}: {error.get('message')}"
        except (ValueError, AttributeError):
            detail = response.text[:200]
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else ""
        if key:
            detail = detail.replace(key, "***")
        return f"{response.status_code} {detail}"


def _text_of(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:  # not JSON (or not UTF-8)
        raise TranscriptionFailed(Failure.UNREADABLE, "not JSON") from None
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise TranscriptionFailed(Failure.UNREADABLE, "no text field")
    return text.strip()
