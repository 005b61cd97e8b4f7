"""An aiogram session that answers the bot from `bot.local.api` instead of the network.

It follows aiogram's own HTTP session (`aiogram.client.session.aiohttp`) step by
step: the method's fields prepared by `BaseSession.prepare_value` (default
properties resolved, files attached), the answer parsed and refused by
`BaseSession.check_response`, so a handler sees exactly the types and exceptions it
would see from Telegram. Every call is recorded for the console and the tests.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, cast

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import InputFile, Update

from bot.local.api import JsonDict, LocalTelegram
from bot.local.files import Upload, file_path_of
from bot.local.telegram_rules import ApiError

ATTACH = "attach://"


@dataclass(slots=True)
class ApiCall:
    """One request the bot made and what it was answered."""

    method: str  #: as Telegram names it, e.g. "sendMessage"
    #: The fields as sent (JSON values; None and "" left out, as aiogram's HTTP
    #: session leaves them out). A file field reads ``attach://<field>``.
    params: JsonDict
    files: dict[str, Upload] = field(default_factory=dict)  #: field -> the uploaded file
    result: Any = None
    error: str | None = None  #: the refusal's description

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def chat_id(self) -> int | None:
        value = self.params.get("chat_id")
        return value if isinstance(value, int) else None

    @property
    def text(self) -> str | None:
        value = self.params.get("text", self.params.get("caption"))
        return value if isinstance(value, str) else None


class LocalBotSession(BaseSession):
    def __init__(self, telegram: LocalTelegram | None = None) -> None:
        super().__init__()
        self.telegram = telegram if telegram is not None else LocalTelegram()
        self.calls: list[ApiCall] = []

    async def close(self) -> None:
        """Nothing to close: no connection was opened."""

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - aiogram's BaseSession signature
    ) -> TelegramType:
        files: dict[str, InputFile] = {}
        params: JsonDict = {}
        for key, value in method.model_dump(warnings=False).items():
            prepared = self.prepare_value(value, bot=bot, files=files, _dumps_json=False)
            if prepared is None or prepared == "":
                continue
            params[key] = prepared
        uploads: dict[str, Upload] = {}
        for key, value in list(params.items()):
            if (
                isinstance(value, str)
                and value.startswith(ATTACH)
                and value[len(ATTACH) :] in files
            ):
                input_file = files[value[len(ATTACH) :]]
                data = b"".join([chunk async for chunk in input_file.read(bot)])
                uploads[key] = Upload(input_file.filename or key, data)
                params[key] = f"{ATTACH}{key}"
        # As on the wire: JSON values only (a str enum such as a scope type becomes its
        # value, as json.dumps makes it over HTTP).
        params = self.json_loads(self.json_dumps(params))
        call = ApiCall(method.__api_method__, params, uploads)
        try:
            call.result = self.telegram.call(bot.token, call.method, params, uploads)
            status, answer = 200, {"ok": True, "result": call.result}
        except ApiError as error:
            call.error = error.description
            status, answer = error.error_code, error.envelope()
        self.calls.append(call)
        # A JSON round trip, as over HTTP: the answer is parsed into aiogram's types
        # (and refusals into its exceptions) by the same code as Telegram's.
        response = self.check_response(bot, method, status, json.dumps(answer))
        return cast(TelegramType, response.result)

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109 - aiogram's BaseSession signature
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        path = file_path_of(url)
        stored = self.telegram.file_at(path) if path is not None else None
        if stored is None:
            if raise_for_status:
                raise FileNotFoundError(url)
            return
        for start in range(0, len(stored.data), chunk_size):
            yield stored.data[start : start + chunk_size]

    def since(self, index: int) -> list[ApiCall]:
        """The calls made after the first ``index`` ones."""
        return self.calls[index:]


#: The local bot's token: only its id part (before the colon) is ever read.
LOCAL_TOKEN = "100000:local-bot-token-not-a-secret"


class LocalBot:
    """A dispatcher and aiogram's Bot with Telegram answered locally: feed it what a
    user sends, get back the requests the bot made in answer (one update at a time,
    through `Dispatcher.feed_update`, exactly as polling hands updates over)."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        telegram: LocalTelegram | None = None,
        *,
        first_update_id: int = 1,
    ) -> None:
        self.dispatcher = dispatcher
        self.session = LocalBotSession(telegram)
        self.telegram = self.session.telegram
        # parse_mode None, as bot.wiring.factory.build_bot: replies are plain text.
        self.bot = Bot(
            LOCAL_TOKEN, session=self.session, default=DefaultBotProperties(parse_mode=None)
        )
        self._update_ids = itertools.count(first_update_id)

    async def feed(self, update: JsonDict) -> list[ApiCall]:
        """Run one update (a dict from LocalTelegram) through the dispatcher."""
        since = len(self.session.calls)
        raw = {"update_id": next(self._update_ids), **update}
        parsed = Update.model_validate(raw, context={"bot": self.bot})
        await self.dispatcher.feed_update(self.bot, parsed)
        return self.session.since(since)

    async def say(
        self, user: int, text: str, *, first_name: str = "Farmer", language_code: str | None = "uk"
    ) -> list[ApiCall]:
        fields = self.telegram.text_fields(text)
        return await self.feed(
            self.telegram.message_update(
                user, fields, first_name=first_name, language_code=language_code
            )
        )

    async def send_location(
        self,
        user: int,
        latitude: float,
        longitude: float,
        *,
        first_name: str = "Farmer",
        language_code: str | None = "uk",
    ) -> list[ApiCall]:
        """A location message (a pin), as Telegram sends one."""
        fields = {"location": {"latitude": latitude, "longitude": longitude}}
        return await self.feed(
            self.telegram.message_update(
                user, fields, first_name=first_name, language_code=language_code
            )
        )

    async def press(
        self,
        user: int,
        data: str,
        message_id: int,
        *,
        first_name: str = "Farmer",
        language_code: str | None = "uk",
    ) -> list[ApiCall]:
        return await self.feed(
            self.telegram.callback_update(
                user,
                data,
                message_id=message_id,
                first_name=first_name,
                language_code=language_code,
            )
        )
