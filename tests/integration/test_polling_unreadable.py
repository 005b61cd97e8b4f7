"""Long polling when Telegram sends an update this aiogram cannot read (a shape from
a newer Bot API): aiogram fails the whole getUpdates batch, and polling asked for the
same batch forever, answering nobody. Now the readable updates of the batch are
handled, the unreadable one is kept as ``poison``, and the offset passes it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.transport.polling import Poller
from bot.transport.serving import build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import UpdateInboxRow
from tests.conftest import make_settings
from tests.fakes.bot_api import FakeBotAPI

TOKEN = "123456:POLL-unreadable"
FARMER = 6262


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(sqlite_url))
    try:
        yield core
    finally:
        await core.close()


async def test_an_unreadable_update_does_not_stall_polling(core: Core) -> None:
    async with FakeBotAPI() as api:
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        dispatcher = build_dispatcher(core)
        inbox = build_inbox(core, dispatcher)
        poller = Poller(dispatcher, bot, inbox, timeout_s=1)
        stop = asyncio.Event()
        unreadable = api.push_update({"message": "привіт"})  # a message must be an object
        api.push_message(FARMER, "привіт")
        task = asyncio.create_task(poller.run(stop))
        try:
            await api.wait_for_count("sendMessage", 1, chat_id=FARMER, timeout=20)
            # Passed: the next batch is asked for beyond it, and later updates flow.
            api.push_message(FARMER, "дякую")
            await api.wait_for_count("sendMessage", 2, chat_id=FARMER, timeout=20)
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await asyncio.gather(*poller._tasks)
            await bot.session.close()
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, unreadable)
    assert row is not None and (row.status, row.outcome) == ("done", "poison")


async def test_a_lone_surrogate_does_not_stall_polling(core: Core) -> None:
    """A text with a lone surrogate (JSON's "\\ud800") could not be stored as JSON:
    the store of its batch failed, and polling asked for the same batch forever."""
    async with FakeBotAPI() as api:
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        dispatcher = build_dispatcher(core)
        inbox = build_inbox(core, dispatcher)
        poller = Poller(dispatcher, bot, inbox, timeout_s=1)
        stop = asyncio.Event()
        api.push_message(FARMER, "при\ud800віт")
        api.push_message(FARMER + 1, "привіт")
        task = asyncio.create_task(poller.run(stop))
        try:
            for chat in (FARMER, FARMER + 1):
                await api.wait_for_count("sendMessage", 1, chat_id=chat, timeout=20)
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await asyncio.gather(*poller._tasks)
            await bot.session.close()
