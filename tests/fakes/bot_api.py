"""A fake Telegram Bot API server over real HTTP, for the process tests and benchmarks.

``FakeBotAPI`` is an aiohttp server on 127.0.0.1 (ephemeral port) that aiogram's real
``Bot`` talks to as to Telegram::

    async with FakeBotAPI() as api:
        bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        update_id = api.push_message(42, "привіт")
        reply = await api.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == 42)

The calls are answered by ``bot.local.api.LocalTelegram``, the same model of the Bot
API (the methods Stepan uses, and Telegram's refusals: text length, HTML entities,
callback data size, "message is not modified", a callback answered twice) that the
console chat and the handler tests use; ``validate=False`` switches the refusals
off. This module adds what only a server has: the HTTP wire format (JSON,
urlencoded and multipart bodies, ``/file/bot{token}/{path}`` downloads), a
long-polling ``getUpdates`` queue, a record of every other call (``SentCall``) to
inspect or await, and faults on demand, per method: an error status with an
optional ``retry_after`` (``fail_next``), a dropped connection (``drop_next``), a
call held unanswered until released (``hold``), a method the server lacks
(``unsupported=``), a user who blocked the bot (``block_user``).

All control methods (``push_*``, ``fail_next``, ``wait_for`` ...) must be called from the
event loop that runs the server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from bot.local.api import LocalTelegram
from bot.local.files import StoredFile, Upload, image_size
from bot.local.telegram_rules import ApiError, bad_request

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

#: Update types Telegram delivers when ``allowed_updates`` was never set.
_DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
#: Form fields (always strings on the wire) that carry JSON objects or arrays.
_JSON_FIELDS = frozenset(
    {"reply_markup", "allowed_updates", "commands", "scope", "entities", "link_preview_options"}
)
#: ``*_id`` fields that are strings in the Bot API; other ``*_id`` fields are integers.
_STR_ID_FIELDS = frozenset({"callback_query_id", "file_id", "file_unique_id"})
_INT_FIELDS = frozenset({"offset", "limit", "timeout", "cache_time"})
#: Free-text fields that must never be coerced to bool.
_TEXT_FIELDS = frozenset({"text", "caption", "parse_mode", "description", "url"})
_INT_RE = re.compile(r"-?\d+")
_FORBIDDEN_BLOCKED = "Forbidden: bot was blocked by the user"


@dataclass(slots=True)
class SentCall:
    """One Bot API request the bot made (every method except ``getUpdates``)."""

    method: str  #: canonical Bot API name, e.g. "sendMessage" (as sent, if unknown)
    params: JsonDict  #: decoded fields: ints, bools and JSON objects already parsed
    files: dict[str, bytes] = field(default_factory=dict)  #: param name -> uploaded bytes
    filenames: dict[str, str] = field(default_factory=dict)  #: param name -> upload filename
    at: float = 0.0  #: time.monotonic() when the request arrived
    result: Any = None  #: the "result" the fake answered with (None on error)
    error_code: int | None = None  #: set when the fake answered ok=false
    description: str | None = None  #: error description when error_code is set
    #: Latest update from this chat that getUpdates had handed to the bot before this call.
    update_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.error_code is None

    @property
    def chat_id(self) -> int | str | None:
        value = self.params.get("chat_id")
        return value if isinstance(value, int | str) else None

    @property
    def text(self) -> str | None:
        """The ``text`` (or ``caption``) parameter as sent."""
        value = self.params.get("text", self.params.get("caption"))
        return value if isinstance(value, str) else None


@dataclass(slots=True)
class _Fault:
    error_code: int
    description: str
    retry_after: int | None
    remaining: int
    chat_id: int | str | None
    #: Close the connection without an answer instead of answering with error_code.
    drop: bool = False
    #: Matching calls let through before the fault starts.
    after: int = 0


class _DroppedConnection(Exception):
    """Raised inside the handler: the connection is aborted, nothing is answered."""


def _coerce(key: str, value: str) -> Any:
    """Turn a form field (always a string) back into the type the Bot API expects."""
    if key in _JSON_FIELDS:
        if value[:1] in ("{", "["):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value
    if key in _INT_FIELDS or (key.endswith("_id") and key not in _STR_ID_FIELDS):
        return int(value) if _INT_RE.fullmatch(value) else value
    if key not in _TEXT_FIELDS and value in ("true", "false"):
        return value == "true"
    return value


def _update_type(update: JsonDict) -> str:
    return next((key for key in update if key != "update_id"), "unknown")


def _update_chat_id(update: JsonDict) -> int | None:
    for key in ("message", "edited_message", "callback_query"):
        obj = update.get(key)
        if isinstance(obj, dict):
            if key == "callback_query":
                message = obj.get("message")
                obj = message if isinstance(message, dict) else {"chat": obj.get("from")}
            chat = obj.get("chat")
            if isinstance(chat, dict) and isinstance(chat.get("id"), int):
                return int(chat["id"])
    return None


class FakeBotAPI:
    """In-process fake of the Telegram Bot API server; see the module docstring."""

    def __init__(
        self,
        *,
        token: str | None = None,
        bot_username: str = "stepan_test_bot",
        bot_first_name: str = "Stepan",
        validate: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
        max_stored_messages: int = 100_000,
        unsupported: frozenset[str] = frozenset(),
    ) -> None:
        """
        :param token: if set, requests for any other token get 401 Unauthorized
        :param validate: emulate Telegram's refusals (markup, lengths, edits, callbacks)
        :param max_stored_messages: messages kept for edits/callbacks (oldest evicted)
        :param unsupported: methods this server lacks (e.g. ``{"setMyCommands"}``, as an
            independent Bot API emulator): answered 404 "Not Found", as Telegram
            answers a method it does not know
        """
        self.telegram = LocalTelegram(
            bot_username=bot_username,
            bot_first_name=bot_first_name,
            validate=validate,
            max_stored_messages=max_stored_messages,
        )
        self._token = token
        self._unsupported = frozenset(name.lower() for name in unsupported)
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self._closing = False

        # Updates: deque of (update_id, type, chat_id, update); only offset removes them.
        self._pending: deque[tuple[int, str, int | None, JsonDict]] = deque()
        self._next_update_id = 1
        self._queued_at: dict[int, float] = {}
        self._delivered_at: dict[int, float] = {}
        self._last_delivered_by_chat: dict[int, int] = {}
        self._allowed_updates: frozenset[str] | None = None
        self._poll_waiter: asyncio.Future[None] | None = None
        self._poll_generation = 0

        # Recording and faults.
        self.sent: list[SentCall] = []
        self._ok_index: dict[tuple[str, int | str | None], list[SentCall]] = {}
        self._waiters: list[tuple[Callable[[SentCall], bool], asyncio.Future[SentCall]]] = []
        self._count_waiters: dict[
            tuple[str, int | str | None], list[tuple[int, asyncio.Future[None]]]
        ] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._blocked: set[int | str] = set()
        #: method -> the gate its calls wait at (``hold``), and how many wait there.
        self._holds: dict[str, asyncio.Event] = {}
        self.held = 0
        #: method -> how many more of its calls are taken (recorded as sent) and then
        #: never answered (``take_then_hang``).
        self._hang_after_taking: dict[str, int] = {}
        #: getUpdates requests (they are not recorded in ``sent``, only counted).
        self.get_updates_calls = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle_method)
        app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = f"http://{host}:{port}"
        self._closing = False
        logger.debug("fake Bot API listening on %s", self.base_url)

    async def stop(self) -> None:
        self._closing = True
        self._wake_poller()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------ pushing updates

    def push_update(self, raw: JsonDict) -> int:
        """Queue a raw Update dict. ``update_id`` is assigned unless given (must increase)."""
        update = dict(raw)
        given = update.get("update_id")
        if given is None:
            update_id = self._next_update_id
        elif isinstance(given, int) and given >= self._next_update_id:
            update_id = given
        else:
            raise ValueError(f"update_id must be >= {self._next_update_id}, got {given!r}")
        self._next_update_id = update_id + 1
        update["update_id"] = update_id
        self._pending.append((update_id, _update_type(update), _update_chat_id(update), update))
        self._queued_at[update_id] = time.monotonic()
        self._wake_poller()
        return update_id

    def _push_fields(self, user_id: int, fields: JsonDict, **sender: Any) -> int:
        return self.push_update(self.telegram.message_update(user_id, fields, **sender))

    def push_message(
        self,
        user_id: int,
        text: str,
        *,
        first_name: str = "Farmer",
        language_code: str = "uk",
        chat_id: int | None = None,
        username: str | None = None,
    ) -> int:
        """Queue a text message from a user in a private chat; returns its update_id."""
        return self._push_fields(
            user_id,
            self.telegram.text_fields(text),
            first_name=first_name,
            language_code=language_code,
            chat_id=chat_id,
            username=username,
        )

    def push_photo(
        self,
        user_id: int,
        data: bytes = b"\xff\xd8\xff\xe0fake-jpeg",
        *,
        caption: str | None = None,
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        """Queue a photo message; ``data`` becomes downloadable via getFile."""
        stored = self.telegram.register_file(data, kind="photos", mime_type="image/jpeg")
        width, height = image_size(data) or (1280, 960)
        fields: JsonDict = {"photo": [stored.as_dict() | {"width": width, "height": height}]}
        if caption is not None:
            fields["caption"] = caption
        return self._push_fields(
            user_id, fields, first_name=first_name, language_code=language_code
        )

    def push_document(
        self,
        user_id: int,
        data: bytes,
        *,
        file_name: str = "document.pdf",
        mime_type: str | None = None,
        caption: str | None = None,
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        stored = self.telegram.register_file(
            data, kind="documents", file_name=file_name, mime_type=mime_type
        )
        document = stored.as_dict() | {"file_name": file_name}
        if stored.mime_type:
            document["mime_type"] = stored.mime_type
        fields: JsonDict = {"document": document}
        if caption is not None:
            fields["caption"] = caption
        return self._push_fields(
            user_id, fields, first_name=first_name, language_code=language_code
        )

    def push_sticker(
        self,
        user_id: int,
        *,
        emoji: str = "👍",
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        stored = self.telegram.register_file(b"RIFF-fake-webp", kind="stickers")
        sticker = stored.as_dict() | {
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
            "emoji": emoji,
        }
        return self._push_fields(
            user_id, {"sticker": sticker}, first_name=first_name, language_code=language_code
        )

    def push_voice(
        self,
        user_id: int,
        data: bytes = b"OggS-fake-voice",
        *,
        duration: int = 3,
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        """Queue a voice message; ``data`` becomes downloadable via getFile."""
        stored = self.telegram.register_file(data, kind="voice", mime_type="audio/ogg")
        voice = stored.as_dict() | {"duration": duration, "mime_type": "audio/ogg"}
        return self._push_fields(
            user_id, {"voice": voice}, first_name=first_name, language_code=language_code
        )

    def push_location(
        self,
        user_id: int,
        latitude: float,
        longitude: float,
        *,
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        location = {"latitude": latitude, "longitude": longitude}
        return self._push_fields(
            user_id, {"location": location}, first_name=first_name, language_code=language_code
        )

    def push_callback(
        self,
        user_id: int,
        data: str,
        *,
        message_id: int,
        chat_id: int | None = None,
        first_name: str = "Farmer",
        language_code: str = "uk",
    ) -> int:
        """Queue a button press on message ``message_id`` (one the bot sent)."""
        return self.push_update(
            self.telegram.callback_update(
                user_id,
                data,
                message_id=message_id,
                chat_id=chat_id,
                first_name=first_name,
                language_code=language_code,
            )
        )

    # ------------------------------------------------------------------ inspection

    @property
    def files(self) -> list[StoredFile]:
        """Every file the bot uploaded, in order."""
        return self.telegram.files

    @property
    def pending_updates(self) -> int:
        """Updates queued but not yet confirmed by a getUpdates offset."""
        return len(self._pending)

    def update_queued_at(self, update_id: int) -> float:
        """time.monotonic() when the update was pushed."""
        return self._queued_at[update_id]

    def update_delivered_at(self, update_id: int) -> float | None:
        """time.monotonic() when getUpdates first handed the update out (None if not yet)."""
        return self._delivered_at.get(update_id)

    def calls(self, method: str, *, chat_id: int | str | None = None) -> list[SentCall]:
        """Successful calls of ``method`` (case-insensitive), optionally for one chat."""
        return list(self._ok_index.get((method.lower(), chat_id), ()))

    def sent_messages(self, chat_id: int | str | None = None) -> list[JsonDict]:
        """Params of every successful sendMessage, in order, optionally for one chat."""
        return [call.params for call in self._ok_index.get(("sendmessage", chat_id), ())]

    def message(self, chat_id: int, message_id: int) -> JsonDict | None:
        """The current state of a stored message (as Telegram would return it)."""
        return self.telegram.message(chat_id, message_id)

    def commands(self, *, scope_type: str = "default", language_code: str = "") -> list[JsonDict]:
        """Commands set by setMyCommands for a scope type and language."""
        return self.telegram.commands(scope_type=scope_type, language_code=language_code)

    async def wait_for(
        self,
        predicate: Callable[[SentCall], bool],
        timeout: float = 10.0,  # noqa: ASYNC109 - the test-facing API takes a plain timeout
        *,
        since: int = 0,
    ) -> SentCall:
        """First call in ``sent[since:]`` (failed ones included) matching ``predicate``,
        awaiting future calls if none has been recorded yet."""
        for call in itertools.islice(self.sent, since, None):
            if predicate(call):
                return call
        future: asyncio.Future[SentCall] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        self._waiters.append(entry)
        try:
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            raise TimeoutError(
                f"no matching Bot API call within {timeout}s; last calls: {self._tail()}"
            ) from None
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    async def wait_for_count(
        self,
        method: str,
        n: int,
        *,
        chat_id: int | str | None = None,
        timeout: float = 10.0,  # noqa: ASYNC109
    ) -> list[SentCall]:
        """Wait until ``n`` successful calls of ``method`` (optionally to ``chat_id``) have
        been recorded; returns the first ``n`` of them."""
        key = (method.lower(), chat_id)
        if len(self._ok_index.get(key, ())) < n:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            entry = (n, future)
            self._count_waiters.setdefault(key, []).append(entry)
            try:
                async with asyncio.timeout(timeout):
                    await future
            except TimeoutError:
                have = len(self._ok_index.get(key, ()))
                raise TimeoutError(
                    f"{have}/{n} {method} calls (chat_id={chat_id}) within {timeout}s; "
                    f"last calls: {self._tail()}"
                ) from None
            finally:
                waiters = self._count_waiters.get(key, [])
                if entry in waiters:
                    waiters.remove(entry)
        return self._ok_index[key][:n]

    # ------------------------------------------------------------------ faults

    def fail_next(
        self,
        method: str,
        *,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | str | None = None,
        after: int = 0,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (to ``chat_id``, if given) fail with
        HTTP ``error_code`` and the Bot API error envelope, once ``after`` of them went
        through (the 2nd part of a reply: ``after=1``); ``method="file"`` fails file
        downloads."""
        fault = _Fault(error_code, description, retry_after, times, chat_id, after=after)
        self._faults.setdefault(method.lower(), []).append(fault)

    def drop_next(self, method: str, *, times: int = 1, chat_id: int | str | None = None) -> None:
        """Make the next ``times`` calls of ``method`` lose their connection: the request
        is read, then the connection is closed with no answer (a proxy restarting,
        a network blip). Works for ``getUpdates`` too."""
        fault = _Fault(0, "connection dropped", None, times, chat_id, drop=True)
        self._faults.setdefault(method.lower(), []).append(fault)

    def hold(self, method: str) -> None:
        """Make calls of ``method`` wait, unanswered, until ``release`` (a slow Bot API:
        a process killed meanwhile dies with its update half handled); ``held``
        counts the calls waiting."""
        self._holds[method.lower()] = asyncio.Event()

    def take_then_hang(self, method: str, *, times: int = 1) -> None:
        """Make the next ``times`` calls of ``method`` succeed (the message reaches the
        chat: ``sent_messages`` has it) and then never answer, as a Bot API that took
        the call and hung: the client's request timeout ends it."""
        self._hang_after_taking[method.lower()] = times

    def release(self, method: str) -> None:
        gate = self._holds.pop(method.lower(), None)
        if gate is not None:
            gate.set()

    def block_user(self, chat_id: int | str) -> None:
        """Every send/edit to this chat fails with 403 "bot was blocked by the user"."""
        self._blocked.add(chat_id)

    def _take_fault(self, key: str, chat_id: int | str | None) -> ApiError | None:
        faults = self._faults.get(key, [])
        for index, fault in enumerate(faults):
            if fault.chat_id is None or fault.chat_id == chat_id:
                if fault.after > 0:
                    fault.after -= 1
                    continue
                fault.remaining -= 1
                if fault.remaining <= 0:
                    del faults[index]
                if fault.drop:
                    raise _DroppedConnection(key)
                parameters = {"retry_after": fault.retry_after} if fault.retry_after else None
                return ApiError(fault.error_code, fault.description, parameters)
        return None

    # ------------------------------------------------------------------ HTTP plumbing

    async def _handle_method(self, request: web.Request) -> web.Response:
        try:
            return await self._answer_method(request)
        except _DroppedConnection:
            if request.transport is not None:
                request.transport.abort()
            # Cancelling the handler makes aiohttp write nothing on the aborted socket.
            raise asyncio.CancelledError from None

    async def _answer_method(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        if self._token is not None and token != self._token:
            return self._error_response(ApiError(401, "Unauthorized"))
        try:
            params, uploads = await self._read_params(request)
        except ValueError as exc:
            return self._error_response(bad_request(f"can't parse request: {exc}"))
        name = request.match_info["method"]
        if name.lower() == "getupdates":
            fault = self._take_fault("getupdates", None)
            if fault is not None:
                return self._error_response(fault)
            return await self._get_updates(params)
        method = next((m for m in self.telegram.methods if m.lower() == name.lower()), name)
        gate = self._holds.get(method.lower())
        if gate is not None:
            self.held += 1
            try:
                await gate.wait()
            finally:
                self.held -= 1
        call = SentCall(method=method, params=params, at=time.monotonic())
        by_param = self._resolve_uploads(call, uploads)
        chat = call.chat_id
        if isinstance(chat, int):
            call.update_id = self._last_delivered_by_chat.get(chat)
        try:
            fault = self._take_fault(method.lower(), chat)
            if fault is not None:
                raise fault
            if method.lower() in self._unsupported:
                raise ApiError(404, "Not Found")
            if chat is not None and chat in self._blocked:
                raise ApiError(403, _FORBIDDEN_BLOCKED)
            call.result = self.telegram.call(token, method, params, by_param)
        except ApiError as exc:
            call.error_code, call.description = exc.error_code, exc.description
            self._record(call)
            return self._error_response(exc)
        except _DroppedConnection:
            # Recorded as a failed call with code 0: the request arrived, no answer left.
            call.error_code, call.description = 0, "connection dropped"
            self._record(call)
            raise
        self._record(call)
        if self._hang_after_taking.get(method.lower(), 0) > 0:
            self._hang_after_taking[method.lower()] -= 1
            await asyncio.Event().wait()  # cancelled when the client gives up
        return self._json_response({"ok": True, "result": call.result})

    async def _handle_file(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        # fail_next("file", ...) fails downloads (``/file/bot<token>/<path>``).
        fault = self._take_fault("file", None)
        if fault is not None:
            return self._error_response(fault)
        stored = self.telegram.file_at(request.match_info["path"])
        if stored is None or (self._token is not None and token != self._token):
            return self._error_response(ApiError(404, "Not Found"))
        return web.Response(
            body=stored.data, content_type=stored.mime_type or "application/octet-stream"
        )

    async def _read_params(self, request: web.Request) -> tuple[JsonDict, dict[str, Upload]]:
        params: JsonDict = {key: _coerce(key, value) for key, value in request.query.items()}
        uploads: dict[str, Upload] = {}
        if request.method != "POST" or not request.body_exists:
            return params, uploads
        if request.content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("JSON body must be an object")
            for key, value in body.items():
                params[key] = _coerce(key, value) if isinstance(value, str) else value
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            for key, value in (await request.post()).items():
                if isinstance(value, web.FileField):
                    uploads[key] = Upload(value.filename, value.file.read(), value.content_type)
                elif isinstance(value, str):
                    params[key] = _coerce(key, value)
                else:  # a binary part without a filename
                    uploads[key] = Upload(key, bytes(value))
        return params, uploads

    @staticmethod
    def _resolve_uploads(call: SentCall, uploads: dict[str, Upload]) -> dict[str, Upload]:
        """Map ``attach://name`` references (and bare file parts) to their param names."""
        by_param: dict[str, Upload] = {}
        used: set[str] = set()
        for key, value in call.params.items():
            if isinstance(value, str) and value.startswith("attach://"):
                part = value[len("attach://") :]
                if part in uploads:
                    by_param[key] = uploads[part]
                    used.add(part)
        by_param |= {part: upload for part, upload in uploads.items() if part not in used}
        for key, upload in by_param.items():
            call.files[key] = upload.data
            call.filenames[key] = upload.filename
        return by_param

    def _record(self, call: SentCall) -> None:
        self.sent.append(call)
        if call.ok:
            method = call.method.lower()
            keys: list[tuple[str, int | str | None]] = [(method, None)]
            if call.chat_id is not None:
                keys.append((method, call.chat_id))
            for key in keys:
                calls = self._ok_index.setdefault(key, [])
                calls.append(call)
                for n, count_future in self._count_waiters.get(key, ()):
                    if len(calls) >= n and not count_future.done():
                        count_future.set_result(None)
        for predicate, future in list(self._waiters):
            if future.done():
                continue
            try:
                matched = predicate(call)
            except Exception as exc:  # surface predicate bugs in the waiting test
                future.set_exception(exc)
                continue
            if matched:
                future.set_result(call)

    def _tail(self) -> str:
        return ", ".join(
            f"{c.method}(chat_id={c.chat_id}, {'ok' if c.ok else c.error_code})"
            for c in self.sent[-5:]
        )

    @staticmethod
    def _json_response(payload: JsonDict, status: int = 200) -> web.Response:
        text = json.dumps(payload, ensure_ascii=False)
        try:
            body = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: sent escaped ("\ud800"), as JSON may
            body = json.dumps(payload).encode()
        return web.Response(
            body=body,
            status=status,
            content_type="application/json",
        )

    def _error_response(self, exc: ApiError) -> web.Response:
        return self._json_response(exc.envelope(), status=exc.error_code)

    # ------------------------------------------------------------------ getUpdates

    def _wake_poller(self) -> None:
        waiter = self._poll_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _confirm(self, offset: int) -> None:
        pending = self._pending
        if offset < 0:
            while len(pending) > -offset:
                pending.popleft()
            return
        while pending and pending[0][0] < offset:
            pending.popleft()

    def _is_allowed(self, kind: str) -> bool:
        allowed = self._allowed_updates
        return kind not in _DEFAULT_EXCLUDED_UPDATES if allowed is None else kind in allowed

    def _collect(self, limit: int) -> list[JsonDict]:
        pending = self._pending
        # Telegram drops updates of types the bot did not ask for.
        while pending and not self._is_allowed(pending[0][1]):
            pending.popleft()
        batch: list[JsonDict] = []
        now = time.monotonic()
        for update_id, kind, chat_id, update in pending:
            if not self._is_allowed(kind):
                continue
            batch.append(update)
            self._delivered_at.setdefault(update_id, now)
            if chat_id is not None:
                self._last_delivered_by_chat[chat_id] = update_id
            if len(batch) >= limit:
                break
        return batch

    async def _get_updates(self, params: JsonDict) -> web.Response:
        self.get_updates_calls += 1
        offset, limit = params.get("offset"), params.get("limit", 100)
        timeout, allowed = params.get("timeout", 0), params.get("allowed_updates")
        limit = min(max(limit, 1), 100) if isinstance(limit, int) else 100
        timeout = max(timeout, 0) if isinstance(timeout, int | float) else 0
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else None
        if isinstance(offset, int):
            self._confirm(offset)
        # A newer getUpdates terminates a waiting one, as on the real server.
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake_poller()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        batch = self._collect(limit)
        while not batch and not self._closing:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            waiter: asyncio.Future[None] = loop.create_future()
            self._poll_waiter = waiter
            try:
                async with asyncio.timeout(remaining):
                    await waiter
            except TimeoutError:
                pass
            finally:
                if self._poll_waiter is waiter:
                    self._poll_waiter = None
            if generation != self._poll_generation:
                return self._error_response(
                    ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make sure that "
                        "only one bot instance is running",
                    )
                )
            batch = self._collect(limit)
        return self._json_response({"ok": True, "result": batch})


__all__ = ["FakeBotAPI", "SentCall", "StoredFile"]
