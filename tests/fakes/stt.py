"""A fake OpenAI-compatible transcription server over real HTTP (tests and benchmarks).

It follows OpenAI's ``createTranscription`` (``POST /v1/audio/transcriptions``,
multipart/form-data), as hosted APIs and faster-whisper servers (speaches) serve it:

* fields ``file`` (required, a file part; its format read from the filename's
  extension: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm), ``model``
  (required), ``language`` (ISO-639-1, optional), ``prompt``, ``temperature``,
  ``response_format`` (``json`` default -> ``{"text": ...}``; ``text`` -> the plain
  text; ``verbose_json`` -> ``task``, ``language``, ``duration``, ``text``, ``segments``);
* refusals as OpenAI's error body ``{"error": {"message", "type", "param", "code"}}``:
  400 ``invalid_request_error`` (a missing field, an unknown format, an unknown
  response_format), 401 ``invalid_api_key`` (with ``api_key`` set: a missing or
  other bearer), 413 over ``max_bytes`` (OpenAI's 25 MB: "Maximum content size limit
  (26214400) exceeded (N bytes read)", a ``server_error``), 500 ``server_error``.

``transcripts`` maps an audio's bytes to what is "heard" (``default`` otherwise);
``fail_next(status)`` makes the next requests fail; ``delay_s`` answers slowly;
``garbage`` answers 200 with an HTML page;
``requests`` records each request that arrived (its fields, never more than the
file's name, type and size).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import BodyPartReader, web

PATH = "/v1/audio/transcriptions"
FORMATS = ("flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm")
RESPONSE_FORMATS = ("json", "text", "srt", "verbose_json", "vtt")
OPENAI_LIMIT = 26_214_400
SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


@dataclass(frozen=True, slots=True)
class Received:
    fields: dict[str, str]
    filename: str | None
    content_type: str | None
    size: int
    authorization: str | None


@dataclass(slots=True)
class _Fault:
    status: int
    times: int
    message: str = ""


@dataclass(slots=True)
class FakeStt:
    host: str = "127.0.0.1"
    port: int = 0
    api_key: str | None = None
    default: str = ""
    transcripts: dict[bytes, str] = field(default_factory=dict)
    delay_s: float = 0.0
    #: Answer 200 with a page that is not a transcription (a proxy in the way).
    garbage: bool = False
    max_bytes: int = OPENAI_LIMIT
    requests: list[Received] = field(default_factory=list)
    _faults: list[_Fault] = field(default_factory=list)
    _runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL Stepan is given (``STEPAN_STT_BASE_URL``)."""
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> None:
        app = web.Application(client_max_size=self.max_bytes * 2)
        app.router.add_post(PATH, self._transcribe)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self.port = int(runner.addresses[0][1])
        self._runner = runner

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        await self.stop()

    def fail_next(self, status: int, *, times: int = 1, message: str = "") -> None:
        self._faults.append(_Fault(status, times, message))

    def hear(self, audio: bytes, text: str) -> None:
        self.transcripts[audio] = text

    # -- the endpoint ------------------------------------------------------------------

    async def _transcribe(self, request: web.Request) -> web.Response:
        authorization = request.headers.get("Authorization")
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return self._auth_error(authorization)
        if not request.content_type.startswith("multipart/form-data"):
            return _error(400, "Could not parse multipart form", None)
        fields, upload = await _read_form(request)
        self.requests.append(
            Received(
                fields,
                upload.filename if upload else None,
                upload.content_type if upload else None,
                len(upload.data) if upload else 0,
                authorization,
            )
        )
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        fault = self._take_fault()
        if fault is not None:
            return fault
        refused = self._check(fields, upload)
        if refused is not None:
            return refused
        assert upload is not None
        if self.garbage:
            return web.Response(text="<html>OK</html>", content_type="text/html")
        return self._answer(fields, self.transcripts.get(upload.data, self.default))

    def _auth_error(self, authorization: str | None) -> web.Response:
        if authorization is None:
            message = (
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
            return _error(401, message, None, kind="invalid_request_error")
        # OpenAI shows the key's ends only; a careless server might echo it whole.
        given = authorization.removeprefix("Bearer ")
        return _error(401, f"Incorrect API key provided: {given}.", "invalid_api_key")

    def _take_fault(self) -> web.Response | None:
        if not self._faults:
            return None
        fault = self._faults[0]
        fault.times -= 1
        if fault.times <= 0:
            self._faults.pop(0)
        if fault.status >= 500:
            return _error(fault.status, fault.message or SERVER_ERROR, None, kind="server_error")
        return _error(fault.status, fault.message or "Refused.", None)

    def _check(self, fields: dict[str, str], upload: _Upload | None) -> web.Response | None:
        if upload is None:
            return _error(400, "you must provide a file", None, param="file")
        if not fields.get("model"):
            return _error(400, "you must provide a model parameter", None, param="model")
        if upload.size > self.max_bytes:
            message = (
                f"Maximum content size limit ({self.max_bytes}) exceeded ({upload.size} bytes read)"
            )
            return _error(413, message, None, kind="server_error")
        extension = (upload.filename or "").rsplit(".", 1)[-1].lower()
        if extension not in FORMATS:
            message = f"Invalid file format. Supported formats: {list(FORMATS)}"
            return _error(400, message, None)
        if fields.get("response_format", "json") not in RESPONSE_FORMATS:
            return _error(400, "Invalid response_format", None, param="response_format")
        return None

    def _answer(self, fields: dict[str, str], text: str) -> web.Response:
        response_format = fields.get("response_format", "json")
        if response_format == "text":
            return web.Response(text=text, content_type="text/plain")
        if response_format == "verbose_json":
            body: dict[str, Any] = {"task": "transcribe", "language": fields.get("language", "uk"),
                                    "duration": 1.0, "text": text, "segments": []}  # fmt: skip
            return web.json_response(body)
        return web.json_response({"text": text})


@dataclass(frozen=True, slots=True)
class _Upload:
    filename: str | None
    content_type: str | None
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


async def _read_form(request: web.Request) -> tuple[dict[str, str], _Upload | None]:
    fields: dict[str, str] = {}
    upload: _Upload | None = None
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):
            continue
        if part.name == "file" and part.filename is not None:
            data = bytes(await part.read())
            upload = _Upload(part.filename, part.headers.get("Content-Type"), data)
        elif part.name:
            fields[part.name] = await part.text()
    return fields, upload


def _error(
    status: int,
    message: str,
    code: str | None,
    *,
    kind: str = "invalid_request_error",
    param: str | None = None,
) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return web.json_response(body, status=status)
