"""The part of the Telegram Bot API that Stepan uses, answered in this process.

`stepan chat` (through `bot.local.session.LocalBotSession`), the handler tests and the
fake Bot API server of the process tests (`tests/fakes/bot_api.py`, over HTTP) all
talk to this one model of Telegram. It keeps what Telegram keeps (the chat's
messages, so an edit or a button press finds its message; the command menus; files)
and refuses what Telegram refuses, so a bug the real server would reject is not
hidden: empty or too long text, HTML that does not parse, callback data over 64
bytes, an edit that changes nothing, a callback answered twice. ``validate=False``
switches the refusals off (the throughput benchmark does not measure them).
"""

from __future__ import annotations

import functools
import itertools
import secrets
import time
from collections.abc import Callable
from typing import Any

from bot.local.files import SEND_FILE_METHODS, FileStore, StoredFile, Upload, image_size
from bot.local.telegram_rules import (
    MAX_CAPTION,
    MAX_TEXT,
    ApiError,
    bad_request,
    check_callback_data,
    check_command,
    visible_text,
)

JsonDict = dict[str, Any]


class LocalTelegram:
    """Chats, messages, files and command menus of one bot; see the module docstring."""

    def __init__(
        self,
        *,
        bot_username: str = "stepan_test_bot",
        bot_first_name: str = "Stepan",
        validate: bool = True,
        max_stored_messages: int = 100_000,
    ) -> None:
        self.validate = validate
        self._bot_username = bot_username
        self._bot_first_name = bot_first_name
        self._max_stored_messages = max_stored_messages
        self._users: dict[int, JsonDict] = {}
        self._message_ids: dict[int, int] = {}
        self._messages: dict[tuple[int, int], JsonDict] = {}
        self._open_callbacks: set[str] = set()
        self._callback_ids = itertools.count(1)
        self._files = FileStore()
        self._commands: dict[str, list[JsonDict]] = {}
        #: Every file the bot sent, in order.
        self.files: list[StoredFile] = []
        self._methods: dict[str, Callable[[str, JsonDict, dict[str, Upload]], Any]] = {
            "getMe": self._get_me,
            "deleteWebhook": lambda token, params, uploads: True,
            "sendMessage": self._send_message,
            "sendChatAction": self._send_chat_action,
            "answerCallbackQuery": self._answer_callback_query,
            "editMessageText": self._edit_message_text,
            "sendDocument": functools.partial(self._send_file, "sendDocument"),
            "sendPhoto": functools.partial(self._send_file, "sendPhoto"),
            "getFile": self._get_file,
            "setMyCommands": self._set_my_commands,
        }

    # ------------------------------------------------------------------ the bot's calls

    @property
    def methods(self) -> tuple[str, ...]:
        """The Bot API methods answered, as Telegram names them."""
        return tuple(self._methods)

    def call(self, token: str, method: str, params: JsonDict, uploads: dict[str, Upload]) -> Any:
        """Answer one Bot API call (``method`` as Telegram names it, e.g. "sendMessage";
        ``uploads`` by parameter name). Raises ApiError as Telegram would refuse it."""
        handler = self._methods.get(method)
        if handler is None:
            raise ApiError(404, "Not Found: method not found")
        return handler(token, params, uploads)

    def _get_me(self, token: str, params: JsonDict, uploads: dict[str, Upload]) -> JsonDict:
        return self.bot_user(token) | {"can_join_groups": False, "supports_inline_queries": False}

    def _send_message(self, token: str, params: JsonDict, uploads: dict[str, Upload]) -> JsonDict:
        chat_id = _require_chat(params)
        text = self._visible(params, "text", MAX_TEXT)
        if not text:
            raise bad_request("message text is empty")
        return self._bot_message(token, chat_id, params, {"text": text})

    def _send_chat_action(self, token: str, params: JsonDict, uploads: dict[str, Upload]) -> bool:
        _require_chat(params)
        if not params.get("action"):
            raise bad_request("wrong parameter action in request")
        return True

    def _answer_callback_query(
        self, token: str, params: JsonDict, uploads: dict[str, Upload]
    ) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        if self.validate:
            if query_id not in self._open_callbacks:
                raise bad_request(
                    "query is too old and response timeout expired or query ID is invalid"
                )
            if len(str(params.get("text") or "")) > 200:
                raise bad_request("MESSAGE_TOO_LONG")
        self._open_callbacks.discard(query_id)
        return True

    def _edit_message_text(
        self, token: str, params: JsonDict, uploads: dict[str, Upload]
    ) -> JsonDict:
        chat_id = _require_chat(params)
        message_id = params.get("message_id")
        message = self._messages.get((chat_id, message_id)) if isinstance(message_id, int) else None
        if message is None:
            raise bad_request("message to edit not found")
        if not message.get("from", {}).get("is_bot"):
            raise bad_request("message can't be edited")
        text = self._visible(params, "text", MAX_TEXT)
        if not text:
            raise bad_request("message text is empty")
        if "text" not in message:
            raise bad_request("there is no text in the message to edit")
        markup = self._inline_markup(params)
        updated = {k: v for k, v in message.items() if k != "reply_markup"} | {"text": text}
        if markup is not None:
            updated["reply_markup"] = markup
        if self.validate and all(
            updated.get(k) == message.get(k) for k in ("text", "reply_markup")
        ):
            raise bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a content and reply markup of the current message"
            )
        updated["edit_date"] = int(time.time())
        self._store(updated)
        return updated

    def _send_file(
        self, method: str, token: str, params: JsonDict, uploads: dict[str, Upload]
    ) -> JsonDict:
        param, _, kind = SEND_FILE_METHODS[method]
        chat_id = _require_chat(params)
        caption = self._visible(params, "caption", MAX_CAPTION)
        upload, ref = uploads.get(param), params.get(param)
        stored = self._files.by_id(ref) if isinstance(ref, str) else None  # a re-send by id
        if upload is not None:
            content_type = upload.content_type
            if content_type == "application/octet-stream":
                content_type = None
            stored = self._files.register(
                upload.data, kind=kind, file_name=upload.filename, mime_type=content_type
            )
            self.files.append(stored)
        if stored is None:
            raise bad_request(f"there is no {param} in the request")
        fields: JsonDict = {}
        if param == "photo":
            width, height = image_size(stored.data) or (1280, 960)
            fields["photo"] = [stored.as_dict() | {"width": width, "height": height}]
        else:
            document = stored.as_dict()
            if stored.file_name:
                document["file_name"] = stored.file_name
            if stored.mime_type:
                document["mime_type"] = stored.mime_type
            fields["document"] = document
        if caption:
            fields["caption"] = caption
        return self._bot_message(token, chat_id, params, fields)

    def _get_file(self, token: str, params: JsonDict, uploads: dict[str, Upload]) -> JsonDict:
        stored = self._files.by_id(str(params.get("file_id") or ""))
        if stored is None:
            raise bad_request("invalid file_id")
        return stored.as_dict(with_path=True)

    def _set_my_commands(self, token: str, params: JsonDict, uploads: dict[str, Upload]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise bad_request("parameter commands is required")
        if self.validate:
            for command in commands:
                check_command(command)
        self._commands[_commands_key(params)] = list(commands)
        return True

    # ------------------------------------------------------------------ what users send

    def message_update(
        self,
        user_id: int,
        fields: JsonDict,
        *,
        first_name: str = "Farmer",
        language_code: str | None = "uk",
        chat_id: int | None = None,
        username: str | None = None,
    ) -> JsonDict:
        """An Update (without ``update_id``) with a message from a user: ``fields`` is
        its content ({"text": ...}, {"document": ...}); the message is kept."""
        chat = chat_id if chat_id is not None else user_id
        user: JsonDict = {"id": user_id, "is_bot": False, "first_name": first_name}
        if username:
            user["username"] = username
        if language_code:
            user["language_code"] = language_code
        self._users[user_id] = user
        message: JsonDict = {
            "message_id": self._next_message_id(chat),
            "from": user,
            "chat": self._chat(chat),
            "date": int(time.time()),
            **fields,
        }
        self._store(message)
        return {"message": message}

    @staticmethod
    def text_fields(text: str) -> JsonDict:
        """A text message's content; a leading command gets its entity, as in Telegram."""
        fields: JsonDict = {"text": text}
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            fields["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return fields

    def callback_update(
        self,
        user_id: int,
        data: str,
        *,
        message_id: int,
        chat_id: int | None = None,
        first_name: str = "Farmer",
        language_code: str | None = "uk",
    ) -> JsonDict:
        """An Update (without ``update_id``): the user pressed a button with ``data``
        under message ``message_id``. Its query is open until answered."""
        chat = chat_id if chat_id is not None else user_id
        user = self._users.get(user_id) or {"id": user_id, "is_bot": False}
        user = user | {"first_name": first_name}
        if language_code:
            user["language_code"] = language_code
        self._users[user_id] = user
        message = self._messages.get((chat, message_id))
        if message is None:  # Telegram sends an InaccessibleMessage for unknown/old ones
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
        return {"callback_query": query}

    def register_file(
        self,
        data: bytes,
        *,
        kind: str = "documents",
        file_name: str | None = None,
        mime_type: str | None = None,
    ) -> StoredFile:
        """Make ``data`` known to getFile and downloads (a file a user sends)."""
        return self._files.register(data, kind=kind, file_name=file_name, mime_type=mime_type)

    # ------------------------------------------------------------------ inspection

    def message(self, chat_id: int, message_id: int) -> JsonDict | None:
        """The current state of a kept message (as Telegram would return it)."""
        return self._messages.get((chat_id, message_id))

    def file_at(self, file_path: str) -> StoredFile | None:
        return self._files.at(file_path)

    def commands(self, *, scope_type: str = "default", language_code: str = "") -> list[JsonDict]:
        """The menu set by setMyCommands for a scope type and language."""
        return list(self._commands.get(f"{scope_type}:{language_code}", []))

    def bot_user(self, token: str) -> JsonDict:
        prefix = token.partition(":")[0]
        return {
            "id": int(prefix) if prefix.isdigit() else 1,
            "is_bot": True,
            "first_name": self._bot_first_name,
            "username": self._bot_username,
        }

    # ------------------------------------------------------------------ internals

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

    def _store(self, message: JsonDict) -> None:
        messages = self._messages
        messages[(message["chat"]["id"], message["message_id"])] = message
        if len(messages) > self._max_stored_messages:
            del messages[next(iter(messages))]

    def _bot_message(
        self, token: str, chat_id: int, params: JsonDict, fields: JsonDict
    ) -> JsonDict:
        message: JsonDict = {
            "message_id": self._next_message_id(chat_id),
            "from": self.bot_user(token),
            "chat": self._chat(chat_id),
            "date": int(time.time()),
            **fields,
        }
        markup = self._inline_markup(params)
        if markup is not None:
            message["reply_markup"] = markup
        self._store(message)
        return message

    def _inline_markup(self, params: JsonDict) -> JsonDict | None:
        """The reply_markup Telegram echoes back (inline keyboards only), checked."""
        markup = params.get("reply_markup")
        if not isinstance(markup, dict) or "inline_keyboard" not in markup:
            return None
        if self.validate:
            for row in markup["inline_keyboard"]:
                for button in row:
                    check_callback_data(button.get("callback_data"))
        return markup

    def _visible(self, params: JsonDict, key: str, limit: int) -> str | None:
        raw = params.get(key)
        if raw is None:
            return None
        if not self.validate:
            return str(raw)
        return visible_text(str(raw), params.get("parse_mode"), limit, caption=key == "caption")


def _require_chat(params: JsonDict) -> int:
    chat_id = params.get("chat_id")
    if chat_id is None or chat_id == "":
        raise bad_request("chat_id is empty")
    if not isinstance(chat_id, int):
        raise bad_request("chat not found")
    return chat_id


def _commands_key(params: JsonDict) -> str:
    scope = params.get("scope")
    scope_type = scope.get("type", "default") if isinstance(scope, dict) else "default"
    return f"{scope_type}:{params.get('language_code') or ''}"
