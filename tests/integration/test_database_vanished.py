"""A database file deleted under the running bot (issue 29 point 2): it once kept
answering «✅ працює» and writing into the unlinked file, lost at the next restart.
Now the watch sees it within seconds: operators are told, farmers get the apology and
their updates stay with Telegram for a replay, /status and /readyz are red, no job
touches the path and nothing recreates an empty database there."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.delivery.unasked import TelegramAlertSender
from bot.http.readiness import readiness_checks
from bot.transport.polling import Poller
from bot.transport.serving import build_inbox, unstored_answers
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from bot.wiring.store_watch import store_watch_hooks
from db.schema import SchemaCheck
from db.store_health import StoreGone
from pipeline.language.catalog import Catalog
from tests.conftest import make_settings
from tests.fakes.bot_api import FakeBotAPI

TOKEN = "123456:POLL-vanished"
FARMER = 8181
OPERATOR = 8282


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(sqlite_url, operator_ids=str(OPERATOR)))
    try:
        yield core
    finally:
        await core.close()


async def test_a_deleted_database_file_stops_writes_and_says_so(
    core: Core, sqlite_url: str, catalog: Catalog
) -> None:
    path = Path(sqlite_url.split("///", 1)[1])
    async with FakeBotAPI() as api:
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        dispatcher = build_dispatcher(core)
        inbox = build_inbox(core, dispatcher)
        poller = Poller(dispatcher, bot, inbox, timeout_s=1, unstored=unstored_answers(core, bot))
        sender = TelegramAlertSender()
        await sender.bind(bot)
        start_watch, stop_watch = store_watch_hooks(core, sender)
        stop = asyncio.Event()
        await start_watch()
        task = asyncio.create_task(poller.run(stop))
        try:
            api.push_message(FARMER, "привіт")
            await api.wait_for_count("sendMessage", 1, chat_id=FARMER, timeout=20)
            os.remove(path)  # the WAL and its index stay, as after an `rm stepan.db`
            await api.wait_for_count("sendMessage", 1, chat_id=OPERATOR, timeout=20)
            [told] = api.sent_messages(OPERATOR)
            assert told["text"] == catalog.text("uk", "status.db.gone_notice", path=str(path))
            api.push_message(FARMER, "запиши полив 20 мм на полі 3")
            await api.wait_for_count("sendMessage", 2, chat_id=FARMER, timeout=20)
            assert api.sent_messages(FARMER)[1]["text"] == catalog.text("uk", "faults.not_saved")
            api.push_message(OPERATOR, "/status")
            await api.wait_for_count("sendMessage", 2, chat_id=OPERATOR, timeout=20)
            status = api.sent_messages(OPERATOR)[1]["text"]
            assert catalog.text("uk", "status.db.cannot_write.gone") in status
            ready = dict(readiness_checks(core.db, SchemaCheck.load()))
            with pytest.raises(StoreGone):
                await ready["database"]()
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await asyncio.gather(*poller._tasks)
            await stop_watch()
            await bot.session.close()
    # The farmer's record was never confirmed «записано» into the unlinked file, and
    # nothing made a new empty database at the path.
    assert len(api.sent_messages(FARMER)) == 2
    assert not await asyncio.to_thread(path.exists)
