"""The real dispatcher, polling in-process against the fake Bot API over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.config import Settings
from bot.delivery.retry import RetryMiddleware, RetryPolicy
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from tests.fakes.bot_api import FakeBotAPI, SentCall
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

TOKEN = "123456:TEST-harness-token"


@dataclass
class Harness:
    api: FakeBotAPI
    core: Core
    bot: Bot
    dispatcher: Dispatcher

    async def say(self, user: int, text: str, **kwargs: Any) -> SentCall:
        """Send a message; return the first sendMessage/editMessageText the bot answers with."""
        since = len(self.api.sent)
        self.api.push_message(user, text, **kwargs)
        return await self.reply(user, since)

    async def press(self, user: int, data: str, message_id: int) -> SentCall:
        """Press a button; return the callback answer (answerCallbackQuery)."""
        since = len(self.api.sent)
        self.api.push_callback(user, data, message_id=message_id)
        return await self.api.wait_for(
            lambda c: c.method == "answerCallbackQuery", since=since, timeout=10
        )

    async def reply(self, chat_id: int, since: int) -> SentCall:
        return await self.api.wait_for(
            lambda c: c.method in ("sendMessage", "editMessageText") and c.chat_id == chat_id,
            since=since,
            timeout=10,
        )

    def message_id(self, call: SentCall) -> int:
        return (
            int(call.result["message_id"])
            if call.method == "sendMessage"
            else int(call.params["message_id"])
        )


@contextlib.asynccontextmanager
async def running_bot(settings: Settings) -> AsyncIterator[Harness]:
    async with FakeBotAPI() as api:
        core = build_core(settings, rules=rulebook(), catalog=shared_catalog())
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        # As bot.wiring.factory.build_bot, with short backoffs.
        bot.session.middleware(RetryMiddleware(RetryPolicy(first_delay=0.01, max_delay=0.05)))
        dispatcher = build_dispatcher(core)
        polling = asyncio.create_task(
            dispatcher.start_polling(bot, handle_signals=False, close_bot_session=True)
        )
        try:
            await api.wait_for(lambda c: c.method == "getMe", timeout=10)
            yield Harness(api, core, bot, dispatcher)
        finally:
            await dispatcher.stop_polling()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await asyncio.wait_for(polling, timeout=10)
            await core.close()
