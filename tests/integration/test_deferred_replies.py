"""A reply in several parts whose part meets flood control (bot/delivery/render.py,
bot/delivery/deferred.py): that part and every part after it are kept in ``telegram_outbox``,
chained in order, before the update is marked done. If the process dies during the
wait, the next sweep sends them, in order, each once; if it does not, each part goes
once from here and its row goes with it. An upload is never kept: while its update
can be replayed nothing is kept (the replay sends it), otherwise the texts after it
are."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter

from bot.delivery.deferred import DeferredSends
from bot.delivery.render import CAPTION_LIMIT, send_reply
from bot.delivery.retry import RetryMiddleware, RetryPolicy
from bot.transport import update_context
from bot.transport.inbox import Inbox
from db.models import UpdateInboxRow
from db.uow import Database
from pipeline.actions import StyleAction
from pipeline.types import Attachment, Button, Reply
from tests.fakes.bot_api import FakeBotAPI
from tests.integration.test_deferred_sends import (
    CHAT,
    LEASE,
    TOKEN,
    Hang,
    _settled,
    api,
    db,
    instance,
    no_wait,
    rows,
)
from tests.integration.test_inbox import Clock, database_url, message

FLOOD = "Too Many Requests: retry after 120"
#: A reply in three parts (each near Telegram's 4,096-character limit but the last).
PARTS = ("а" * 4000, "б" * 4000, "в" * 100)
BUTTONS = ((Button("Коротко", StyleAction("brief")),),)
LONG = Reply("\n\n".join(PARTS), BUTTONS)


class HangAfter:
    """The first ``n`` flood waits end at once, the next one never does."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.hang = Hang()

    async def __call__(self, seconds: float) -> None:
        if self.left > 0:
            self.left -= 1
            return
        await self.hang(seconds)


def impatient(api: FakeBotAPI, deferred: DeferredSends, flood_waits: int) -> Bot:
    """An instance that gives up after ``flood_waits`` flood waits (each at once)."""
    bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(api.base_url)))
    policy = RetryPolicy(max_flood_waits=flood_waits)
    bot.session.middleware(RetryMiddleware(policy, sleep=no_wait, deferred=deferred))
    return bot


async def reply_to(bot: Bot, inbox: Inbox | None, update_id: int | None, reply: Reply) -> None:
    """As the inbox middleware runs a handler (bot/transport/inbox.py) that sends ``reply``."""
    token = update_context.handling(update_id)
    parts = update_context.delivering(
        inbox.delivery(update_id) if inbox is not None and update_id is not None else None
    )
    try:
        await send_reply(bot, CHAT, reply)
    finally:
        update_context.delivered(parts)
        update_context.done(token)


async def die(task: asyncio.Task[None], bot: Bot) -> None:
    """SIGKILL during the wait: nothing released, the leases run out."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await bot.session.close()


async def update_row(db: Database, update_id: int) -> UpdateInboxRow:
    async with db.read() as session:
        row = await session.get(UpdateInboxRow, update_id)
    assert row is not None
    return row


def texts(api: FakeBotAPI) -> list[str]:
    return [params["text"] for params in api.sent_messages(CHAT)]


def attempts(api: FakeBotAPI, method: str) -> list[int | None]:
    """The error code of every try of ``method`` (None: Telegram took it)."""
    return [call.error_code for call in api.sent if call.method == method]


async def sweep_all(deferred: DeferredSends, bot: Bot) -> int:
    started = await deferred.sweep(bot)
    await _settled(deferred)
    return started


async def test_after_a_crash_during_the_wait_the_rest_of_the_reply_arrives_in_order_once(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    inbox = Inbox(db, "first", LEASE, clock)
    await inbox.store([message(51, user=CHAT)])
    first = DeferredSends(db, "first", LEASE, clock)
    hang = Hang()
    bot = instance(api, first, hang)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=120, after=1)

    task = asyncio.create_task(reply_to(bot, inbox, 51, LONG))
    await hang.asked.wait()
    # Parts 2 and 3 are kept, chained, before the update is marked done.
    assert await rows(db) == 2
    row = await update_row(db, 51)
    assert (row.status, row.outcome, row.replies_sent) == ("done", "deferred", 1)
    await die(task, bot)
    assert texts(api) == [PARTS[0]]

    second = DeferredSends(db, "second", LEASE, clock)
    again = instance(api, second, no_wait)
    try:
        clock.now += timedelta(seconds=121)  # the wait is over, the dead one's lease not
        assert await sweep_all(second, again) == 0
        clock.now += LEASE
        assert await sweep_all(second, again) == 1  # one reply: its parts in one task
        assert await sweep_all(second, again) == 0
    finally:
        await again.session.close()

    assert texts(api) == list(PARTS)
    sent = api.sent_messages(CHAT)
    assert ["reply_markup" in params for params in sent] == [False, False, True]
    assert await rows(db) == 0


async def test_a_later_part_never_overtakes_one_flood_control_holds_again(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    first = DeferredSends(db, "first", LEASE, clock)
    hang = Hang()
    bot = instance(api, first, hang)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=120, after=1)
    task = asyncio.create_task(reply_to(bot, None, None, LONG))
    await hang.asked.wait()
    await die(task, bot)

    second = DeferredSends(db, "second", LEASE, clock)
    again = impatient(api, second, flood_waits=0)
    try:
        clock.now += timedelta(seconds=121) + LEASE
        # Part 2 meets flood control again: postponed, and part 3 (due, nobody
        # holds it) waits behind it.
        api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=30)
        assert await sweep_all(second, again) == 1
        assert texts(api) == [PARTS[0]]
        assert await sweep_all(second, again) == 0
        clock.now += timedelta(seconds=31)
        assert await sweep_all(second, again) == 1
    finally:
        await again.session.close()
    assert texts(api) == list(PARTS)
    assert await rows(db) == 0


async def test_when_the_wait_ends_here_each_part_goes_once_and_no_row_is_left(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    inbox = Inbox(db, "only", LEASE, clock)
    await inbox.store([message(52, user=CHAT)])
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = instance(api, deferred, no_wait)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=120, after=1)
    try:
        await reply_to(bot, inbox, 52, LONG)
        assert await rows(db) == 0 and deferred.held == 0
        clock.now += timedelta(hours=1)
        assert await sweep_all(deferred, bot) == 0
    finally:
        await bot.session.close()
    assert attempts(api, "sendMessage") == [None, 429, None, None]
    assert texts(api) == list(PARTS)
    row = await update_row(db, 52)
    assert (row.status, row.outcome, row.replies_sent) == ("done", "deferred", 1)


async def test_a_crash_after_the_wait_ended_sends_only_the_parts_telegram_had_not_taken(
    db: Database, api: FakeBotAPI
) -> None:
    """Part 2 waited out flood control here and went (its row went with it); part 3
    met flood control in turn and the process died: only part 3 is sent later."""
    clock = Clock()
    first = DeferredSends(db, "first", LEASE, clock)
    sleep = HangAfter(1)
    bot = instance(api, first, sleep)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=5, after=1)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=5, after=2)
    task = asyncio.create_task(reply_to(bot, None, None, LONG))
    await sleep.hang.asked.wait()
    assert texts(api) == list(PARTS[:2])
    assert await rows(db) == 1
    await die(task, bot)

    second = DeferredSends(db, "second", LEASE, clock)
    again = instance(api, second, no_wait)
    try:
        clock.now += timedelta(seconds=6) + LEASE
        assert await sweep_all(second, again) == 1
    finally:
        await again.session.close()
    assert texts(api) == list(PARTS)
    assert await rows(db) == 0


async def test_given_up_here_the_part_and_the_rest_are_left_to_the_sweep_in_order(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = impatient(api, deferred, flood_waits=1)
    api.fail_next(
        "sendMessage", error_code=429, description=FLOOD, retry_after=60, after=1, times=2
    )
    try:
        with pytest.raises(TelegramRetryAfter):
            await reply_to(bot, None, None, LONG)
        assert texts(api) == [PARTS[0]]
        assert await rows(db) == 2 and deferred.held == 0
        assert await sweep_all(deferred, bot) == 0  # not before Telegram's wait
        clock.now += timedelta(seconds=61)
        assert await sweep_all(deferred, bot) == 1
    finally:
        await bot.session.close()
    assert texts(api) == list(PARTS)
    assert await rows(db) == 0


async def test_a_part_telegram_refuses_ends_the_reply_and_leaves_no_row(
    db: Database, api: FakeBotAPI
) -> None:
    """As without flood control: the parts after a refused one are not sent."""
    clock = Clock()
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = instance(api, deferred, no_wait)
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=5, after=1)
    api.fail_next("sendMessage", error_code=400, description="Bad Request: no", after=2)
    try:
        with pytest.raises(TelegramBadRequest):
            await reply_to(bot, None, None, Reply("\n\n".join([*PARTS, "г" * 10])))
        assert await rows(db) == 0 and deferred.held == 0
        clock.now += timedelta(hours=1)
        assert await sweep_all(deferred, bot) == 0
    finally:
        await bot.session.close()
    assert texts(api) == list(PARTS[:2])


#: A report whose text is too long for a caption: the file, then the text.
REPORT = Reply("Звіт по полях. " * 80, document=Attachment("zvit.csv", b"a;b\n"))


async def test_an_upload_waiting_out_flood_control_leaves_its_update_to_a_replay(
    db: Database, api: FakeBotAPI
) -> None:
    """Nothing is kept: the update stays open, so after a crash it is replayed and
    the replay sends the file and the text after it."""
    assert len(REPORT.text.strip()) > CAPTION_LIMIT
    clock = Clock()
    inbox = Inbox(db, "first", LEASE, clock)
    await inbox.store([message(53, user=CHAT)])
    first = DeferredSends(db, "first", LEASE, clock)
    hang = Hang()
    bot = instance(api, first, hang)
    api.fail_next("sendDocument", error_code=429, description=FLOOD, retry_after=120)
    task = asyncio.create_task(reply_to(bot, inbox, 53, REPORT))
    await hang.asked.wait()
    assert await rows(db) == 0
    await die(task, bot)
    assert (await update_row(db, 53)).status == "handling"

    clock.now += LEASE + timedelta(seconds=1)
    replayed = Inbox(db, "second", LEASE, clock)
    assert [update_id for update_id, _ in await replayed.expired()] == [53]


@pytest.mark.parametrize("update", ["none", "deferred before"])
async def test_the_text_after_an_upload_is_kept_when_no_replay_would_send_it(
    db: Database, api: FakeBotAPI, update: str
) -> None:
    """A scheduled alert (no update), or an update marked done when an earlier reply
    of it was kept: the text after the upload is kept; only the upload itself is
    lost if the process dies during its wait (docs/OPERATIONS.md)."""
    clock = Clock()
    inbox = Inbox(db, "first", LEASE, clock)
    await inbox.store([message(54, user=CHAT)])
    first = DeferredSends(db, "first", LEASE, clock)
    sleep = HangAfter(1 if update == "deferred before" else 0)
    bot = instance(api, first, sleep)
    api.fail_next("sendDocument", error_code=429, description=FLOOD, retry_after=120)

    async def handle() -> None:
        if update == "none":
            await reply_to(bot, None, None, REPORT)
            return
        token = update_context.handling(54)
        parts = update_context.delivering(inbox.delivery(54))
        try:
            api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=1)
            await send_reply(bot, CHAT, Reply("Зараз надішлю звіт."))
            await send_reply(bot, CHAT, REPORT)
        finally:
            update_context.delivered(parts)
            update_context.done(token)

    task = asyncio.create_task(handle())
    await sleep.hang.asked.wait()
    assert await rows(db) == 1
    await die(task, bot)

    second = DeferredSends(db, "second", LEASE, clock)
    again = instance(api, second, no_wait)
    try:
        clock.now += timedelta(seconds=121) + LEASE
        assert await sweep_all(second, again) == 1
    finally:
        await again.session.close()
    assert texts(api)[-1] == REPORT.text.strip()
    assert attempts(api, "sendDocument") == [429]
    assert await rows(db) == 0


async def test_the_text_kept_behind_an_upload_goes_once_when_the_wait_ends_here(
    db: Database, api: FakeBotAPI
) -> None:
    clock = Clock()
    deferred = DeferredSends(db, "only", LEASE, clock)
    bot = instance(api, deferred, no_wait)
    api.fail_next("sendDocument", error_code=429, description=FLOOD, retry_after=120)
    try:
        await reply_to(bot, None, None, REPORT)
        assert await rows(db) == 0 and deferred.held == 0
        clock.now += timedelta(hours=1)
        assert await sweep_all(deferred, bot) == 0
    finally:
        await bot.session.close()
    assert [call.method for call in api.sent if call.ok] == ["sendDocument", "sendMessage"]
    assert texts(api) == [REPORT.text.strip()]


__all__ = ["TOKEN", "api", "database_url", "db"]  # fixtures: SQLite, and PostgreSQL
