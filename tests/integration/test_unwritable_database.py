"""A database that cannot be written answers anyway (issue 29 point 3): six messages,
/status included, once got nothing for 25 s each while another writer held SQLite's
lock. Now a farmer gets «зараз не можу зберегти» while the batch waits, an operator's
/status is answered from what can be read, and the update, never confirmed to
Telegram, is handled once the lock is gone (the inbox rule: nothing lost)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.transport.polling import Poller
from bot.transport.serving import build_inbox, unstored_answers
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from pipeline.language.catalog import Catalog
from tests.conftest import make_settings
from tests.fakes.bot_api import FakeBotAPI

TOKEN = "123456:POLL-unwritable"
FARMER = 7171
OPERATOR = 7272


@pytest.fixture
async def core(sqlite_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(sqlite_url, operator_ids=str(OPERATOR)))
    try:
        yield core
    finally:
        await core.close()


@contextlib.contextmanager
def write_lock(sqlite_url: str) -> Iterator[None]:
    """Another process's writer holds SQLite's one write lock for the block."""
    conn = sqlite3.connect(Path(sqlite_url.split("///", 1)[1]), isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


async def test_a_locked_database_answers_at_once_and_loses_nothing(
    core: Core, sqlite_url: str, catalog: Catalog
) -> None:
    async with FakeBotAPI() as api:
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        dispatcher = build_dispatcher(core)
        inbox = build_inbox(core, dispatcher)
        poller = Poller(dispatcher, bot, inbox, timeout_s=1, unstored=unstored_answers(core, bot))
        stop = asyncio.Event()
        task = asyncio.create_task(poller.run(stop))
        try:
            with write_lock(sqlite_url):
                api.push_message(FARMER, "привіт")
                api.push_message(OPERATOR, "/status")
                await api.wait_for_count("sendMessage", 1, chat_id=FARMER, timeout=20)
                await api.wait_for_count("sendMessage", 1, chat_id=OPERATOR, timeout=20)
                [apology] = api.sent_messages(FARMER)
                assert apology["text"] == catalog.text("uk", "faults.not_saved")
                [status] = api.sent_messages(OPERATOR)
                assert status["text"].startswith(catalog.text("uk", "admin.status_header"))
            # The lock is gone: the same updates, stored at last, are handled.
            await api.wait_for_count("sendMessage", 2, chat_id=FARMER, timeout=40)
            await api.wait_for_count("sendMessage", 2, chat_id=OPERATOR, timeout=40)
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await asyncio.gather(*poller._tasks)
            await bot.session.close()
    answer = api.sent_messages(FARMER)[1]["text"]
    assert answer != catalog.text("uk", "faults.not_saved")
    assert len(api.sent_messages(FARMER)) == 2  # the apology once, however often fetched


async def _query_only(core: Core, on: bool) -> None:
    """SQLite refuses every write on the bot's one connection, as on a file system
    remounted read-only ("attempt to write a readonly database")."""
    async with core.engine.connect() as conn:  # no transaction: BEGIN IMMEDIATE would fail
        raw = await conn.get_raw_connection()
        await raw.driver_connection.execute(f"PRAGMA query_only={'ON' if on else 'OFF'}")


async def test_a_read_only_database_answers_and_status_says_why(
    core: Core, catalog: Catalog
) -> None:
    async with FakeBotAPI() as api:
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
        dispatcher = build_dispatcher(core)
        inbox = build_inbox(core, dispatcher)
        poller = Poller(dispatcher, bot, inbox, timeout_s=1, unstored=unstored_answers(core, bot))
        stop = asyncio.Event()
        await _query_only(core, True)
        task = asyncio.create_task(poller.run(stop))
        try:
            api.push_message(FARMER, "запиши полив 20 мм на полі 3")
            await api.wait_for_count("sendMessage", 1, chat_id=FARMER, timeout=20)
            api.push_message(OPERATOR, "/status")
            await api.wait_for_count("sendMessage", 1, chat_id=OPERATOR, timeout=20)
            assert [m["text"] for m in api.sent_messages(FARMER)] == [
                catalog.text("uk", "faults.not_saved")
            ]
            [status] = api.sent_messages(OPERATOR)
            assert catalog.text("uk", "status.db.cannot_write.read_only") in status["text"]
            assert not core.db.health.writable
            await _query_only(core, False)
            await api.wait_for_count("sendMessage", 2, chat_id=FARMER, timeout=40)
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await asyncio.gather(*poller._tasks)
            await bot.session.close()
    card = api.sent_messages(FARMER)[1]
    assert "reply_markup" in card  # the journal card, from the update kept for replay
    assert core.db.health.writable
