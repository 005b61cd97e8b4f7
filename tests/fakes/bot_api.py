"""A fake Telegram Bot API server over real HTTP, for tests and benchmarks.

``FakeBotAPI`` is an aiohttp server on 127.0.0.1 (ephemeral port) that speaks the
Bot API wire protocol closely enough for aiogram's real ``Bot`` to talk to it::

    async with FakeBotAPI() as api:
        bot = Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        update_id = api.push_message(42, "привіт")
        reply = await api.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == 42)

It serves ``/bot{token}/{method}`` (GET or POST with JSON, urlencoded or multipart bodies)
and ``/file/bot{token}/{file_path}`` downloads. Updates are queued in memory and handed
out by a real long-polling ``getUpdates``; every other call the bot makes is recorded as a
``SentCall`` that tests can inspect or await. Like Telegram, it validates what it can
cheaply (HTML / MarkdownV2 markup, message length, callback data size, "message is not
modified") so that bugs a real server would reject are not hidden by the fake; pass
``validate=False`` to switch that off.

All control methods (``push_*``, ``fail_next``, ``wait_for`` ...) must be called from the
event loop that runs the server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import mimetypes
import re
import secrets
import struct
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import web

logger = logging.getLogger(__name__)

JsonDict = dict[str, Any]

#: Update types Telegram delivers when ``allowed_updates`` was never set.
_DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
#: Form fields that carry JSON-serialised objects or arrays.
_JSON_FIELDS = frozenset(
    {
        "reply_markup", "allowed_updates", "commands", "scope", "entities",
        "caption_entities", "link_preview_options", "reply_parameters", "media",
        "menu_button", "results", "options", "prices", "permissions",
        "explanation_entities", "input_message_content", "message_ids", "reaction",
    }
)  # fmt: skip
#: Integer fields that do not end in ``_id``.
_INT_FIELDS = frozenset(
    {
        "offset", "limit", "timeout", "cache_time", "duration", "width", "height",
        "max_connections", "until_date", "live_period", "heading", "open_period",
    }
)  # fmt: skip
#: ``*_id`` fields that are strings in the Bot API.
_STR_ID_FIELDS = frozenset(
    {
        "callback_query_id", "inline_query_id", "inline_message_id", "file_id",
        "file_unique_id", "business_connection_id", "message_effect_id",
        "custom_emoji_id", "shipping_query_id", "pre_checkout_query_id", "web_app_query_id",
    }
)  # fmt: skip
#: Free-text fields that must never be coerced to bool.
_TEXT_FIELDS = frozenset(
    {
        "text", "caption", "query", "title", "description", "short_description", "name",
        "question", "explanation", "url", "emoji", "performer", "address", "parse_mode",
    }
)  # fmt: skip
_INT_RE = re.compile(r"-?\d+")
_HTML_TAGS = frozenset(
    {
        "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
        "a", "code", "pre", "blockquote", "tg-emoji", "tg-time",
    }
)  # fmt: skip
_HTML_SPECIAL_RE = re.compile(r"[<&]")
_HTML_TAG_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_HTML_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});")
_HTML_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_MDV2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!\\")
_MAX_TEXT = 4096
_MAX_CAPTION = 1024
_SEND_FILE_METHODS = {
    # method -> (param, message field, file_id prefix, storage folder)
    "sendDocument": ("document", "document", "BQACAgIAAxkBAAI", "documents"),
    "sendPhoto": ("photo", "photo", "AgACAgIAAxkBAAI", "photos"),
    "sendAudio": ("audio", "audio", "CQACAgIAAxkBAAI", "music"),
    "sendVoice": ("voice", "voice", "AwACAgIAAxkBAAI", "voice"),
    "sendVideo": ("video", "video", "BAACAgIAAxkBAAI", "videos"),
}
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
class StoredFile:
    """A file known to the fake: uploaded by the bot or registered by a test."""

    file_id: str
    file_unique_id: str
    file_path: str
    data: bytes
    file_name: str | None = None
    mime_type: str | None = None

    def as_dict(self, *, with_path: bool = False) -> JsonDict:
        out: JsonDict = {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": len(self.data),
        }
        if with_path:
            out["file_path"] = self.file_path
        return out


@dataclass(slots=True)
class _Fault:
    error_code: int
    description: str
    retry_after: int | None
    remaining: int
    chat_id: int | str | None


@dataclass(slots=True)
class _Upload:
    filename: str
    content_type: str | None
    data: bytes


@dataclass(slots=True)
class _Request:
    """What a method handler gets: the decoded request plus its recording."""

    token: str
    params: JsonDict
    uploads: dict[str, _Upload]
    call: SentCall


class _ApiError(Exception):
    def __init__(self, error_code: int, description: str, parameters: JsonDict | None = None):
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters


def _bad_request(description: str) -> _ApiError:
    return _ApiError(400, f"Bad Request: {description}")


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
    if key not in _TEXT_FIELDS:
        if value == "true":
            return True
        if value == "false":
            return False
    return value


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode())


def _parse_html(text: str) -> str:
    """Validate Telegram-flavoured HTML like the Bot API does; return the visible text."""
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    while (match := _HTML_SPECIAL_RE.search(text, pos)) is not None:
        start = match.start()
        out.append(text[pos:start])
        if text[start] == "&":
            entity = _HTML_ENTITY_RE.match(text, start)
            if entity is None:
                out.append("&")
                pos = start + 1
                continue
            name = entity.group(1)
            if name in _HTML_NAMED:
                out.append(_HTML_NAMED[name])
            else:
                code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
                out.append(chr(code) if 0 < code < 0x110000 else "\ufffd")
            pos = entity.end()
            continue
        end = text.find(">", start)
        if end < 0:
            raise _bad_request(
                f"can't parse entities: Unclosed start tag at byte offset "
                f"{_byte_offset(text, start)}"
            )
        inner = text[start + 1 : end]
        if inner.startswith("/"):
            name = inner[1:].strip().lower()
            if not stack:
                raise _bad_request(
                    f"can't parse entities: Unexpected end tag at byte offset "
                    f"{_byte_offset(text, start)}"
                )
            if stack[-1] != name:
                raise _bad_request(
                    f"can't parse entities: Unmatched end tag at byte offset "
                    f'{_byte_offset(text, start)}, expected "</{stack[-1]}>", found "</{name}>"'
                )
            stack.pop()
        else:
            tag = _HTML_TAG_NAME_RE.match(inner)
            if tag is None or tag.group(0).lower() not in _HTML_TAGS:
                raise _bad_request(
                    f'can\'t parse entities: Unsupported start tag "{inner}" at byte offset '
                    f"{_byte_offset(text, start)}"
                )
            stack.append(tag.group(0).lower())
        pos = end + 1
    out.append(text[pos:])
    if stack:
        raise _bad_request(
            f"can't parse entities: Can't find end tag corresponding to start tag \"{stack[-1]}\""
        )
    return "".join(out)


def _parse_markdown_v2(text: str) -> str:
    """A light MarkdownV2 check: reserved characters must be escaped, markup balanced."""
    out: list[str] = []
    open_at: dict[str, int] = {}
    i, n = 0, len(text)
    in_link = False
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 < n:
                out.append(text[i + 1])
            i += 2
            continue
        if ch == "`":
            fence = "```" if text.startswith("```", i) else "`"
            close = i + len(fence)
            while True:
                close = text.find(fence, close)
                if close < 0:
                    raise _bad_request(
                        "can't parse entities: Can't find end of Code entity at byte offset "
                        f"{_byte_offset(text, i)}"
                    )
                if text[close - 1] != "\\":
                    break
                close += 1
            out.append(text[i + len(fence) : close])
            i = close + len(fence)
            continue
        if ch in "*_~|":
            token = "||" if text.startswith("||", i) else ch
            if token == "|":
                raise _bad_request(
                    "can't parse entities: Character '|' is reserved and must be escaped "
                    "with the preceding '\\'"
                )
            if token in open_at:
                del open_at[token]
            else:
                open_at[token] = i
            i += len(token)
            continue
        if ch == "[":
            in_link = True
            i += 1
            continue
        if ch == "]" and in_link:
            in_link = False
            if text.startswith("(", i + 1):
                close = text.find(")", i + 2)
                if close < 0:
                    raise _bad_request(
                        "can't parse entities: Can't find end of a URL at byte offset "
                        f"{_byte_offset(text, i)}"
                    )
                i = close + 1
            else:
                i += 1
            continue
        if ch == ">" and (i == 0 or text[i - 1] == "\n"):
            i += 1
            continue
        if ch in _MDV2_RESERVED:
            raise _bad_request(
                f"can't parse entities: Character '{ch}' is reserved and must be escaped "
                "with the preceding '\\'"
            )
        out.append(ch)
        i += 1
    if open_at or in_link:
        start = min(open_at.values()) if open_at else text.rfind("[")
        raise _bad_request(
            "can't parse entities: Can't find end of the entity starting at byte offset "
            f"{_byte_offset(text, start)}"
        )
    return "".join(out)


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG or JPEG image, if recognisable."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data) and data[i] == 0xFF:
            marker = data[i + 1]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return int(width), int(height)
            (length,) = struct.unpack(">H", data[i + 2 : i + 4])
            i += 2 + int(length)
    return None


def _update_type(update: JsonDict) -> str:
    return next((key for key in update if key != "update_id"), "unknown")


def _update_chat_id(update: JsonDict) -> int | None:
    for key in ("message", "edited_message", "callback_query", "my_chat_member"):
        obj = update.get(key)
        if isinstance(obj, dict):
            if key == "callback_query":
                message = obj.get("message")
                sender = obj.get("from")
                obj = message if isinstance(message, dict) else {"chat": sender}
            chat = obj.get("chat")
            if isinstance(chat, dict) and isinstance(chat.get("id"), int):
                return int(chat["id"])
    return None


class FakeBotAPI:
    """In-process fake of the Telegram Bot API; see the module docstring."""

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
    ) -> None:
        """
        :param token: if set, requests for any other token get 401 Unauthorized
        :param validate: emulate Telegram's rejections (markup, lengths, edits, callbacks)
        :param max_stored_messages: messages kept for edits/callbacks (oldest evicted)
        """
        self._token = token
        self._bot_username = bot_username
        self._bot_first_name = bot_first_name
        self.validate = validate
        self._host = host
        self._port = port
        self._max_stored_messages = max_stored_messages

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
        self._webhook_url = ""

        # Recording.
        self.sent: list[SentCall] = []
        self._ok_index: dict[tuple[str, int | str | None], list[SentCall]] = {}
        self._waiters: list[tuple[Callable[[SentCall], bool], asyncio.Future[SentCall]]] = []
        self._count_waiters: dict[
            tuple[str, int | str | None], list[tuple[int, asyncio.Future[None]]]
        ] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._blocked: set[int | str] = set()

        # Chats, messages and files.
        self._users: dict[int, JsonDict] = {}
        self._message_ids: dict[int, int] = {}
        self._messages: dict[tuple[int, int], JsonDict] = {}
        self._open_callbacks: set[str] = set()
        self._callback_ids = itertools.count(1)
        self._file_seq = itertools.count(1)
        self._files_by_id: dict[str, StoredFile] = {}
        self._files_by_path: dict[str, StoredFile] = {}
        #: Every file the bot uploaded, in order.
        self.files: list[StoredFile] = []
        self._commands: dict[str, list[JsonDict]] = {}

        #: Request counters (getUpdates is not recorded in ``sent``, only counted).
        self.requests_total = 0
        self.get_updates_calls = 0

        self._methods: dict[str, tuple[str, Callable[[_Request], Any]]] = {}
        for name, handler in (
            ("getMe", self._m_get_me),
            ("logOut", self._m_true),
            ("close", self._m_true),
            ("setWebhook", self._m_set_webhook),
            ("deleteWebhook", self._m_delete_webhook),
            ("getWebhookInfo", self._m_get_webhook_info),
            ("sendMessage", self._m_send_message),
            ("sendChatAction", self._m_send_chat_action),
            ("answerCallbackQuery", self._m_answer_callback_query),
            ("editMessageText", self._m_edit_message_text),
            ("editMessageCaption", self._m_edit_message_caption),
            ("editMessageReplyMarkup", self._m_edit_message_reply_markup),
            ("deleteMessage", self._m_delete_message),
            ("getFile", self._m_get_file),
            ("setMyCommands", self._m_set_my_commands),
            ("getMyCommands", self._m_get_my_commands),
            ("deleteMyCommands", self._m_delete_my_commands),
            ("setMyDescription", self._m_true),
            ("setMyShortDescription", self._m_true),
            ("setMyName", self._m_true),
            ("setChatMenuButton", self._m_true),
        ):
            self._methods[name.lower()] = (name, handler)
        for name in _SEND_FILE_METHODS:
            self._methods[name.lower()] = (name, self._m_send_file)

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
            logger.debug("fake Bot API on %s stopped", self.base_url)

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
        fields: JsonDict = {"text": text}
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            fields["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return self._push_user_message(
            user_id, fields, first_name, language_code, chat_id, username
        )

    def push_photo(
        self,
        user_id: int,
        data: bytes = b"\xff\xd8\xff\xe0fake-jpeg",
        *,
        caption: str | None = None,
        width: int | None = None,
        height: int | None = None,
        first_name: str = "Farmer",
        language_code: str = "uk",
        chat_id: int | None = None,
    ) -> int:
        """Queue a photo message; ``data`` becomes downloadable via getFile."""
        size = _image_size(data) or (width or 1280, height or 960)
        stored = self.register_file(data, kind="photos", mime_type="image/jpeg")
        photo = []
        w, h = size
        if max(w, h) > 320:
            scale = 320 / max(w, h)
            thumb = self.register_file(data, kind="photos", mime_type="image/jpeg")
            photo.append(thumb.as_dict() | {"width": round(w * scale), "height": round(h * scale)})
        photo.append(stored.as_dict() | {"width": w, "height": h})
        fields: JsonDict = {"photo": photo}
        if caption is not None:
            fields["caption"] = caption
        return self._push_user_message(user_id, fields, first_name, language_code, chat_id)

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
        chat_id: int | None = None,
    ) -> int:
        stored = self.register_file(
            data, kind="documents", file_name=file_name, mime_type=mime_type
        )
        document = stored.as_dict() | {"file_name": file_name}
        if stored.mime_type:
            document["mime_type"] = stored.mime_type
        fields: JsonDict = {"document": document}
        if caption is not None:
            fields["caption"] = caption
        return self._push_user_message(user_id, fields, first_name, language_code, chat_id)

    def push_sticker(
        self,
        user_id: int,
        *,
        emoji: str = "👍",
        first_name: str = "Farmer",
        language_code: str = "uk",
        chat_id: int | None = None,
    ) -> int:
        stored = self.register_file(b"RIFF-fake-webp", kind="stickers", mime_type="image/webp")
        sticker = stored.as_dict() | {
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
            "emoji": emoji,
            "set_name": "FakeStickers",
        }
        return self._push_user_message(
            user_id, {"sticker": sticker}, first_name, language_code, chat_id
        )

    def push_voice(
        self,
        user_id: int,
        data: bytes = b"OggS-fake-voice",
        *,
        duration: int = 3,
        first_name: str = "Farmer",
        language_code: str = "uk",
        chat_id: int | None = None,
    ) -> int:
        stored = self.register_file(data, kind="voice", mime_type="audio/ogg")
        voice = stored.as_dict() | {"duration": duration, "mime_type": "audio/ogg"}
        return self._push_user_message(
            user_id, {"voice": voice}, first_name, language_code, chat_id
        )

    def push_location(
        self,
        user_id: int,
        latitude: float,
        longitude: float,
        *,
        first_name: str = "Farmer",
        language_code: str = "uk",
        chat_id: int | None = None,
    ) -> int:
        location = {"latitude": latitude, "longitude": longitude}
        return self._push_user_message(
            user_id, {"location": location}, first_name, language_code, chat_id
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
        chat = chat_id if chat_id is not None else user_id
        user = self._remember_user(user_id, first_name, language_code, None)
        message = self._messages.get((chat, message_id))
        if message is None:  # Telegram sends InaccessibleMessage for unknown/old messages
            message = {"message_id": message_id, "date": 0, "chat": self._chat(chat)}
        query_id = f"{secrets.randbits(40)}{next(self._callback_ids)}"
        self._open_callbacks.add(query_id)
        query = {
            "id": query_id,
            "from": user,
            "message": message,
            "chat_instance": str(abs(chat) * 1_000_003 % 10**18),
            "data": data,
        }
        return self.push_update({"callback_query": query})

    def register_file(
        self,
        data: bytes,
        *,
        kind: str = "documents",
        file_name: str | None = None,
        mime_type: str | None = None,
    ) -> StoredFile:
        """Make ``data`` known to getFile and the /file/ route; returns its metadata."""
        seq = next(self._file_seq)
        prefix = next(
            (p for _, _, p, folder in _SEND_FILE_METHODS.values() if folder == kind),
            "CAACAgIAAxkBAAI",
        )
        if mime_type is None and file_name:
            mime_type = mimetypes.guess_type(file_name)[0]
        ext = (mimetypes.guess_extension(mime_type) if mime_type else None) or ".bin"
        if file_name and "." in file_name:
            ext = file_name[file_name.rfind(".") :]
        stored = StoredFile(
            file_id=f"{prefix}{seq:06d}{secrets.token_urlsafe(12)}",
            file_unique_id=f"AgAD{seq:06d}",
            file_path=f"{kind}/file_{seq}{ext}",
            data=data,
            file_name=file_name,
            mime_type=mime_type,
        )
        self._files_by_id[stored.file_id] = stored
        self._files_by_path[stored.file_path] = stored
        return stored

    # ------------------------------------------------------------------ inspection

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
        return self._messages.get((chat_id, message_id))

    def commands(self, *, scope_type: str = "default", language_code: str = "") -> list[JsonDict]:
        """Commands set by setMyCommands for a scope type and language."""
        return list(self._commands.get(f"{scope_type}:{language_code}", []))

    def clear_sent(self) -> None:
        """Forget recorded calls (e.g. between benchmark rounds); ``since`` indexes reset."""
        self.sent.clear()
        self._ok_index.clear()

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

    # ------------------------------------------------------------------ fault injection

    def fail_next(
        self,
        method: str,
        *,
        error_code: int,
        description: str,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (to ``chat_id``, if given) fail with
        HTTP ``error_code`` and the Bot API error envelope."""
        fault = _Fault(error_code, description, retry_after, times, chat_id)
        self._faults.setdefault(method.lower(), []).append(fault)

    def block_user(self, chat_id: int | str) -> None:
        """Every send/edit to this chat fails with 403 "bot was blocked by the user"."""
        self._blocked.add(chat_id)

    def unblock_user(self, chat_id: int | str) -> None:
        self._blocked.discard(chat_id)

    # ------------------------------------------------------------------ HTTP plumbing

    async def _handle_method(self, request: web.Request) -> web.Response:
        self.requests_total += 1
        token = request.match_info["token"]
        if self._token is not None and token != self._token:
            return self._error_response(_ApiError(401, "Unauthorized"))
        try:
            params, uploads = await self._read_params(request)
        except ValueError as exc:
            return self._error_response(_bad_request(f"can't parse request: {exc}"))
        name = request.match_info["method"]
        key = name.lower()
        if key == "getupdates":
            fault = self._take_fault(key, None)
            if fault is not None:
                return self._error_response(self._fault_error(fault))
            return await self._get_updates(params)

        entry = self._methods.get(key)
        call = SentCall(method=entry[0] if entry else name, params=params, at=time.monotonic())
        by_param = self._resolve_uploads(call, uploads)
        chat = call.chat_id
        if isinstance(chat, int):
            call.update_id = self._last_delivered_by_chat.get(chat)
        try:
            fault = self._take_fault(key, chat)
            if fault is not None:
                raise self._fault_error(fault)
            if entry is None:
                raise _ApiError(404, "Not Found: method not found")
            if chat is not None and chat in self._blocked:
                raise _ApiError(403, _FORBIDDEN_BLOCKED)
            call.result = entry[1](_Request(token, params, by_param, call))
        except _ApiError as exc:
            call.error_code = exc.error_code
            call.description = exc.description
            self._record(call)
            return self._error_response(exc)
        self._record(call)
        return self._json_response({"ok": True, "result": call.result})

    async def _handle_file(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        stored = self._files_by_path.get(request.match_info["path"])
        if stored is None or (self._token is not None and token != self._token):
            return self._error_response(_ApiError(404, "Not Found"))
        return web.Response(
            body=stored.data, content_type=stored.mime_type or "application/octet-stream"
        )

    async def _read_params(self, request: web.Request) -> tuple[JsonDict, dict[str, _Upload]]:
        params: JsonDict = {key: _coerce(key, value) for key, value in request.query.items()}
        uploads: dict[str, _Upload] = {}
        if request.method != "POST" or not request.body_exists:
            return params, uploads
        content_type = request.content_type
        if content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("JSON body must be an object")
            for key, value in body.items():
                params[key] = _coerce(key, value) if isinstance(value, str) else value
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    uploads[key] = _Upload(value.filename, value.content_type, value.file.read())
                elif isinstance(value, str):
                    params[key] = _coerce(key, value)
                else:  # a binary part without a filename
                    uploads[key] = _Upload(key, None, bytes(value))
        return params, uploads

    @staticmethod
    def _resolve_uploads(call: SentCall, uploads: dict[str, _Upload]) -> dict[str, _Upload]:
        """Map ``attach://name`` references (and bare file parts) to their param names."""
        by_param: dict[str, _Upload] = {}
        if not uploads:
            return by_param
        used: set[str] = set()
        for key, value in call.params.items():
            if isinstance(value, str) and value.startswith("attach://"):
                part = value[len("attach://") :]
                if part in uploads:
                    by_param[key] = uploads[part]
                    used.add(part)
        for part, upload in uploads.items():
            if part not in used:
                by_param[part] = upload
        for key, upload in by_param.items():
            call.files[key] = upload.data
            call.filenames[key] = upload.filename
        return by_param

    def _take_fault(self, key: str, chat_id: int | str | None) -> _Fault | None:
        faults = self._faults.get(key)
        if not faults:
            return None
        for index, fault in enumerate(faults):
            if fault.chat_id is None or fault.chat_id == chat_id:
                fault.remaining -= 1
                if fault.remaining <= 0:
                    del faults[index]
                return fault
        return None

    @staticmethod
    def _fault_error(fault: _Fault) -> _ApiError:
        parameters = {"retry_after": fault.retry_after} if fault.retry_after else None
        return _ApiError(fault.error_code, fault.description, parameters)

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
                waiters = self._count_waiters.get(key)
                if waiters:
                    for n, count_future in waiters:
                        if len(calls) >= n and not count_future.done():
                            count_future.set_result(None)
        if self._waiters:
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
        return web.Response(
            body=json.dumps(payload, ensure_ascii=False).encode(),
            status=status,
            content_type="application/json",
        )

    def _error_response(self, exc: _ApiError) -> web.Response:
        payload: JsonDict = {
            "ok": False,
            "error_code": exc.error_code,
            "description": exc.description,
        }
        if exc.parameters:
            payload["parameters"] = exc.parameters
        return self._json_response(payload, status=exc.error_code)

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
        # Telegram drops updates of types the bot did not ask for; skipped ones further
        # back are dropped by the next offset.
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
        if self._webhook_url:
            return self._error_response(
                _ApiError(
                    409,
                    "Conflict: can't use getUpdates method while webhook is active; "
                    "use deleteWebhook to delete the webhook first",
                )
            )
        offset = params.get("offset")
        limit = params.get("limit", 100)
        timeout = params.get("timeout", 0)
        allowed = params.get("allowed_updates")
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
                    _ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make sure that "
                        "only one bot instance is running",
                    )
                )
            batch = self._collect(limit)
        return self._json_response({"ok": True, "result": batch})

    # ------------------------------------------------------------------ objects

    def _bot_user(self, token: str) -> JsonDict:
        prefix = token.partition(":")[0]
        return {
            "id": int(prefix) if prefix.isdigit() else 1,
            "is_bot": True,
            "first_name": self._bot_first_name,
            "username": self._bot_username,
        }

    def _remember_user(
        self, user_id: int, first_name: str, language_code: str, username: str | None
    ) -> JsonDict:
        user: JsonDict = {"id": user_id, "is_bot": False, "first_name": first_name}
        if username:
            user["username"] = username
        user["language_code"] = language_code
        self._users[user_id] = user
        return user

    def _chat(self, chat_id: int) -> JsonDict:
        if chat_id < 0:
            kind = "supergroup" if str(chat_id).startswith("-100") else "group"
            return {"id": chat_id, "type": kind, "title": "Test group"}
        chat: JsonDict = {"id": chat_id, "type": "private"}
        user = self._users.get(chat_id)
        if user is not None:
            chat["first_name"] = user["first_name"]
            if "username" in user:
                chat["username"] = user["username"]
        return chat

    def _next_message_id(self, chat_id: int) -> int:
        message_id = self._message_ids.get(chat_id, 0) + 1
        self._message_ids[chat_id] = message_id
        return message_id

    def _store_message(self, message: JsonDict) -> None:
        messages = self._messages
        messages[(message["chat"]["id"], message["message_id"])] = message
        if len(messages) > self._max_stored_messages:
            del messages[next(iter(messages))]

    def _push_user_message(
        self,
        user_id: int,
        fields: JsonDict,
        first_name: str,
        language_code: str,
        chat_id: int | None,
        username: str | None = None,
    ) -> int:
        chat = chat_id if chat_id is not None else user_id
        user = self._remember_user(user_id, first_name, language_code, username)
        message: JsonDict = {
            "message_id": self._next_message_id(chat),
            "from": user,
            "chat": self._chat(chat),
            "date": int(time.time()),
            **fields,
        }
        self._store_message(message)
        return self.push_update({"message": message})

    def _bot_message(self, req: _Request, fields: JsonDict) -> JsonDict:
        chat_id = self._require_chat(req.params)
        message: JsonDict = {
            "message_id": self._next_message_id(chat_id),
            "from": self._bot_user(req.token),
            "chat": self._chat(chat_id),
            "date": int(time.time()),
            **fields,
        }
        markup = self._inline_markup(req.params)
        if markup is not None:
            message["reply_markup"] = markup
        self._store_message(message)
        return message

    @staticmethod
    def _require_chat(params: JsonDict) -> int:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise _bad_request("chat_id is empty")
        if not isinstance(chat_id, int):
            raise _bad_request("chat not found")
        return chat_id

    def _inline_markup(self, params: JsonDict) -> JsonDict | None:
        """The reply_markup Telegram echoes back (inline keyboards only), validated."""
        markup = params.get("reply_markup")
        if not isinstance(markup, dict) or "inline_keyboard" not in markup:
            return None
        if self.validate:
            for row in markup["inline_keyboard"]:
                for button in row:
                    data = button.get("callback_data")
                    if data is not None and not 1 <= len(str(data).encode()) <= 64:
                        raise _bad_request("BUTTON_DATA_INVALID")
        return markup

    def _visible_text(self, params: JsonDict, key: str, limit: int) -> str | None:
        """Parse ``params[key]`` per parse_mode; enforce Telegram's length limit."""
        raw = params.get(key)
        if raw is None:
            return None
        text = str(raw)
        if not self.validate:
            return text
        mode = str(params.get("parse_mode") or "").lower()
        if mode == "html":
            text = _parse_html(text)
        elif mode == "markdownv2":
            text = _parse_markdown_v2(text)
        text = text.strip()
        if _utf16_len(text) > limit:
            raise _bad_request(
                "message is too long" if key == "text" else "message caption is too long"
            )
        return text

    def _edit_target(self, params: JsonDict) -> JsonDict:
        chat_id = self._require_chat(params)
        message_id = params.get("message_id")
        message = self._messages.get((chat_id, message_id)) if isinstance(message_id, int) else None
        if message is None:
            raise _bad_request("message to edit not found")
        if not message.get("from", {}).get("is_bot"):
            raise _bad_request("message can't be edited")
        return message

    def _apply_edit(self, message: JsonDict, changes: JsonDict, params: JsonDict) -> JsonDict:
        markup = self._inline_markup(params)
        updated = {k: v for k, v in message.items() if k != "reply_markup"} | changes
        if markup is not None:
            updated["reply_markup"] = markup
        if self.validate and all(
            updated.get(k) == message.get(k) for k in ("text", "caption", "reply_markup")
        ):
            raise _bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a content and reply markup of the current message"
            )
        updated["edit_date"] = int(time.time())
        self._store_message(updated)
        return updated

    # ------------------------------------------------------------------ methods

    def _m_true(self, req: _Request) -> bool:
        return True

    def _m_get_me(self, req: _Request) -> JsonDict:
        return self._bot_user(req.token) | {
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _m_set_webhook(self, req: _Request) -> bool:
        self._webhook_url = str(req.params.get("url") or "")
        return True

    def _m_delete_webhook(self, req: _Request) -> bool:
        self._webhook_url = ""
        if req.params.get("drop_pending_updates") is True:
            self._pending.clear()
        return True

    def _m_get_webhook_info(self, req: _Request) -> JsonDict:
        return {
            "url": self._webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    def _m_send_message(self, req: _Request) -> JsonDict:
        self._require_chat(req.params)
        text = self._visible_text(req.params, "text", _MAX_TEXT)
        if not text:
            raise _bad_request("message text is empty")
        return self._bot_message(req, {"text": text})

    def _m_send_chat_action(self, req: _Request) -> bool:
        self._require_chat(req.params)
        if not req.params.get("action"):
            raise _bad_request("wrong parameter action in request")
        return True

    def _m_answer_callback_query(self, req: _Request) -> bool:
        query_id = str(req.params.get("callback_query_id") or "")
        if self.validate:
            if query_id not in self._open_callbacks:
                raise _bad_request(
                    "query is too old and response timeout expired or query ID is invalid"
                )
            self._open_callbacks.discard(query_id)
        return True

    def _m_edit_message_text(self, req: _Request) -> JsonDict | bool:
        if req.params.get("inline_message_id"):
            return True
        message = self._edit_target(req.params)
        text = self._visible_text(req.params, "text", _MAX_TEXT)
        if not text:
            raise _bad_request("message text is empty")
        if "text" not in message:
            raise _bad_request("there is no text in the message to edit")
        return self._apply_edit(message, {"text": text}, req.params)

    def _m_edit_message_caption(self, req: _Request) -> JsonDict | bool:
        if req.params.get("inline_message_id"):
            return True
        message = self._edit_target(req.params)
        caption = self._visible_text(req.params, "caption", _MAX_CAPTION)
        changes: JsonDict = {"caption": caption} if caption else {}
        if not caption:
            message = {k: v for k, v in message.items() if k != "caption"}
        return self._apply_edit(message, changes, req.params)

    def _m_edit_message_reply_markup(self, req: _Request) -> JsonDict | bool:
        if req.params.get("inline_message_id"):
            return True
        return self._apply_edit(self._edit_target(req.params), {}, req.params)

    def _m_delete_message(self, req: _Request) -> bool:
        chat_id = self._require_chat(req.params)
        message_id = req.params.get("message_id")
        if (
            not isinstance(message_id, int)
            or self._messages.pop((chat_id, message_id), None) is None
        ):
            raise _bad_request("message to delete not found")
        return True

    def _m_send_file(self, req: _Request) -> JsonDict:
        param, field_name, _, kind = _SEND_FILE_METHODS[req.call.method]
        self._require_chat(req.params)
        caption = self._visible_text(req.params, "caption", _MAX_CAPTION)
        upload = req.uploads.get(param)
        ref = req.params.get(param)
        if upload is not None:
            stored = self.register_file(
                upload.data,
                kind=kind,
                file_name=upload.filename,
                mime_type=(
                    upload.content_type
                    if upload.content_type and upload.content_type != "application/octet-stream"
                    else None
                ),
            )
            self.files.append(stored)
        elif isinstance(ref, str) and ref in self._files_by_id:
            stored = self._files_by_id[ref]
        elif isinstance(ref, str) and ref.startswith(("http://", "https://")):
            stored = self.register_file(b"", kind=kind, file_name=ref.rsplit("/", 1)[-1])
        else:
            raise _bad_request(f"there is no {param} in the request")
        fields: JsonDict = {}
        if field_name == "photo":
            width, height = _image_size(stored.data) or (1280, 960)
            fields["photo"] = [stored.as_dict() | {"width": width, "height": height}]
        else:
            obj = stored.as_dict()
            if stored.file_name:
                obj["file_name"] = stored.file_name
            if stored.mime_type:
                obj["mime_type"] = stored.mime_type
            if field_name in ("audio", "voice", "video"):
                obj["duration"] = int(req.params.get("duration") or 1)
            if field_name == "video":
                obj |= {"width": 1280, "height": 720}
            fields[field_name] = obj
        if caption:
            fields["caption"] = caption
        return self._bot_message(req, fields)

    def _m_get_file(self, req: _Request) -> JsonDict:
        stored = self._files_by_id.get(str(req.params.get("file_id") or ""))
        if stored is None:
            raise _bad_request("invalid file_id")
        return stored.as_dict(with_path=True)

    @staticmethod
    def _commands_key(params: JsonDict) -> str:
        scope = params.get("scope")
        scope_type = scope.get("type", "default") if isinstance(scope, dict) else "default"
        return f"{scope_type}:{params.get('language_code') or ''}"

    def _m_set_my_commands(self, req: _Request) -> bool:
        commands = req.params.get("commands")
        if not isinstance(commands, list):
            raise _bad_request("parameter commands is required")
        if self.validate:
            for command in commands:
                name = str(command.get("command", ""))
                if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                    raise _bad_request("BOT_COMMAND_INVALID")
                if not 1 <= len(str(command.get("description", ""))) <= 256:
                    raise _bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self._commands[self._commands_key(req.params)] = list(commands)
        return True

    def _m_get_my_commands(self, req: _Request) -> list[JsonDict]:
        return list(self._commands.get(self._commands_key(req.params), []))

    def _m_delete_my_commands(self, req: _Request) -> bool:
        self._commands.pop(self._commands_key(req.params), None)
        return True


__all__ = ["FakeBotAPI", "SentCall", "StoredFile"]
