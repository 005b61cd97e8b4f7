"""A reply waiting out Telegram's flood control survives a restart (bot/delivery/deferred.py):
kept in ``telegram_outbox`` while the process waits, its update marked done, and
sent once by the next sweep when the process stopped or died before the wait ended;
gone without a trace when the wait ends here."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramNetworkError
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from sqlalchemy import func, select

from bot.delivery.deferred import DeferredSends
from bot.delivery.failures import TIMEOUT_RESEND_S, ReplyTimedOut
from bot.delivery.retry import RetryMiddleware
from bot.transport import update_context
from bot.transport.inbox import Inbox
from db.engine import create_engine
from db.models import TelegramOutboxRow, UpdateInboxRow
from db.uow import Database
from tests.fakes.bot_api import FakeBotAPI
from tests.integration.test_inbox import Clock, database_url, message

TOKEN = "123456:TEST-deferred-token"
CHAT = 6161
FLOOD = "Too Many Requests: retry after 120"
LEASE = timedelta(seconds=30)


class Hang:
    """A flood wait that never ends here (the process is stopped meanwhile)."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.asked.set()
        await asyncio.Event().wait()


async def no_wait(seconds: float) -> None:
    return None


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    engine = create_engine(database_url)
    try:
        yield Database.of(engine)
    finally:
        await engine.dispose()


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI() as fake:
        yield fake


def instance(api: FakeBotAPI, deferred: DeferredSends, sleep: object) -> Bot:
    bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
    bot.session.middleware(RetryMiddleware(sleep=sleep, deferred=deferred))  # type: ignore[arg-type]
    return bot


async def rows(db: Database) -> int:
    async with db.read() as session:
        return int((await session.execute(select(func.count(TelegramOutboxRow.id)))).scalar_one())


async def test_a_flood_waiting_reply_is_sent_once_after_the_process_stops(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    inbox = Inbox(db, "first", LEASE, clock)
    await inbox.store([message(41, user=CHAT)])
    first = DeferredSends(db, "first", LEASE, clock)
    hang = Hang()
    bot = instance(api, first, hang)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=120)
    keyboard = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="Так", callback_data="jr:1")]]
    )

    async def handle() -> None:
        token = update_context.handling(41)
        try:
            await bot.send_message(CHAT, "Полив записано.", reply_markup=keyboard)
        finally:
            update_context.done(token)

    task = asyncio.create_task(handle())
    await hang.asked.wait()
    # Kept: the reply is in the database, and its update is done (no replay).
    assert await rows(db) == 1
    async with db.read() as session:
        update = await session.get(UpdateInboxRow, 41)
    assert update is not None and (update.status, update.outcome) == ("done", "deferred")
    # SIGTERM: the wait is cut short, the reply is left for the next start.
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await first.release()
    await bot.session.close()

    second = DeferredSends(db, "second", LEASE, clock)
    again = instance(api, second, no_wait)
    try:
        assert await second.sweep(again) == 0  # flood control still holds for 120 s
        clock.now += timedelta(seconds=121)
        assert await second.sweep(again) == 1
        await _settled(second)
        assert await second.sweep(again) == 0
    finally:
        await again.session.close()

    sent = api.sent_messages(CHAT)
    assert [params["text"] for params in sent] == ["Полив записано."]
    assert sent[0]["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "jr:1"
    assert await rows(db) == 0


async def test_a_dead_holders_reply_is_sent_after_its_lease(db: Database, api: FakeBotAPI) -> None:
    clock = Clock()
    first = DeferredSends(db, "first", LEASE, clock)
    hang = Hang()
    bot = instance(api, first, hang)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=5)
    task = asyncio.create_task(bot.send_message(CHAT, "Дощ 12 мм."))
    await hang.asked.wait()
    task.cancel()  # SIGKILL: nothing released
    with pytest.raises(asyncio.CancelledError):
        await task
    await bot.session.close()

    second = DeferredSends(db, "second", LEASE, clock)
    again = instance(api, second, no_wait)
    try:
        clock.now += timedelta(seconds=10)  # the wait is over, the lease is not
        assert await second.sweep(again) == 0
        clock.now += LEASE
        assert await second.sweep(again) == 1
        await _settled(second)
    finally:
        await again.session.close()
    assert [params["text"] for params in api.sent_messages(CHAT)] == ["Дощ 12 мм."]


async def test_a_wait_that_ends_here_leaves_nothing_to_send_again(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = instance(api, deferred, no_wait)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=3)
    try:
        await bot.send_message(CHAT, "Готово.")
        assert await rows(db) == 0 and deferred.held == 0
        clock.now += timedelta(hours=1)
        assert await deferred.sweep(bot) == 0
        # A callback answer means nothing minutes later: it waits in memory only.
        api.fail_next("answerCallbackQuery", error_code=429, description=FLOOD, retry_after=3)
        assert not deferred.keeps(_callback_answer())
    finally:
        await bot.session.close()
    assert len(api.sent_messages(CHAT)) == 1


# --- a send that times out (issue 29 point 4) ---------------------------------------


def timing_out(api: FakeBotAPI, deferred: DeferredSends | None) -> Bot:
    """A bot whose requests time out after half a second (aiogram's is 60 s)."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(api.base_url), timeout=0.5)
    session.middleware(RetryMiddleware(sleep=no_wait, deferred=deferred))
    return Bot(TOKEN, session=session)


async def _send_for(bot: Bot, update_id: int, text: str) -> None:
    token = update_context.handling(update_id)
    try:
        await bot.send_message(CHAT, text)
    finally:
        update_context.done(token)


@pytest.mark.parametrize("resend_hangs", [False, True])
async def test_a_send_that_times_out_is_sent_once_more_from_the_outbox(
    db: Database, api: FakeBotAPI, resend_hangs: bool
) -> None:
    """Telegram took the message and never answered: the reply is kept, the caller
    told at once (its update done, nothing held behind it), and the outbox sends it
    once more; a resend that hangs too is the last one. Never a third copy."""
    clock = Clock()
    inbox = Inbox(db, "only", LEASE, clock)
    await inbox.store([message(51, user=CHAT)])
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = timing_out(api, deferred)
    api.take_then_hang("sendMessage", times=2 if resend_hangs else 1)
    try:
        with pytest.raises(ReplyTimedOut):
            await _send_for(bot, 51, "Полив записано.")
        assert len(api.sent_messages(CHAT)) == 1 and await rows(db) == 1
        async with db.read() as session:
            update = await session.get(UpdateInboxRow, 51)
        assert update is not None and (update.status, update.outcome) == ("done", "deferred")
        assert await deferred.sweep(bot) == 0  # it waits a few seconds first
        clock.now += timedelta(seconds=TIMEOUT_RESEND_S + 1)
        assert await deferred.sweep(bot) == 1
        await _settled(deferred)
        clock.now += LEASE * 2
        assert await deferred.sweep(bot) == 0
    finally:
        await bot.session.close()
    assert [m["text"] for m in api.sent_messages(CHAT)] == ["Полив записано."] * 2
    assert await rows(db) == 0


async def test_without_the_outbox_a_timed_out_send_is_tried_once_more(api: FakeBotAPI) -> None:
    bot = timing_out(api, None)
    api.take_then_hang("sendMessage", times=5)
    try:
        with pytest.raises(TelegramNetworkError):
            await bot.send_message(CHAT, "Дощ 12 мм.")
    finally:
        await bot.session.close()
    assert len(api.sent_messages(CHAT)) == 2  # the first and one more, never five


def _callback_answer() -> object:
    from aiogram.methods import AnswerCallbackQuery

    return AnswerCallbackQuery(callback_query_id="1")


async def _settled(deferred: DeferredSends) -> None:
    for _ in range(200):
        if deferred.held == 0:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the sweep's send did not finish")


__all__ = ["database_url"]  # the fixture: SQLite, and PostgreSQL when it runs
