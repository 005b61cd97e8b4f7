"""The update inbox on both databases: one winner per update however many instances
claim it at once, leases that run out, replays in order, poison given up, and what
a shutdown gives back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiogram.types import TelegramObject, Update

from bot.transport.inbox import CLAIMED, MAX_ATTEMPTS, Inbox, InboxMiddleware, update_json
from db.engine import create_engine
from db.models import UpdateInboxRow
from db.uow import Database

START = datetime(2026, 5, 1, 8, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def message(update_id: int, user: int = 7, text: str = "привіт") -> Update:
    return Update.model_validate(
        {
            "update_id": update_id,
            "message": {
                "message_id": update_id,
                "date": 1_700_000_000,
                "chat": {"id": user, "type": "private"},
                "from": {"id": user, "is_bot": False, "first_name": "Оксана"},
                "text": text,
            },
        }
    )


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "migrated_postgres_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    pool = {} if database_url.startswith("sqlite") else {"pool_size": 10}
    engine = create_engine(database_url, **pool)
    try:
        yield Database.of(engine)
    finally:
        await engine.dispose()


async def test_one_instance_wins_each_update_however_many_claim_it(db: Database) -> None:
    lease = timedelta(seconds=30)
    inboxes = [Inbox(db, f"instance-{n}", lease) for n in range(3)]
    updates = [message(100 + n) for n in range(30)]

    async def claims(inbox: Inbox) -> list[int]:
        won = await asyncio.gather(*(inbox.claim(update) for update in updates))
        return [update.update_id for update, ok in zip(updates, won, strict=True) if ok]

    results = await asyncio.gather(*(claims(inbox) for inbox in inboxes))
    winners = sorted(update_id for won in results for update_id in won)
    assert winners == [update.update_id for update in updates]


async def test_a_stored_batch_drops_what_is_known_and_survives_its_holder(
    db: Database,
) -> None:
    clock = Clock()
    first = Inbox(db, "first", timedelta(seconds=30), clock)
    new = await first.store([message(1), message(2)])
    assert [update.update_id for update in new] == [1, 2]
    # Telegram sends the batch again (not confirmed yet) with one more update.
    again = await first.store([message(1), message(2), message(3)])
    assert [update.update_id for update in again] == [3]
    await first.finish(1, "ok")
    # "first" dies holding 2 and 3. Within the lease nobody may take them...
    second = Inbox(db, "second", timedelta(seconds=30), clock)
    assert await second.expired() == []
    assert not await second.claim(message(2))
    # ...after it, they come back oldest first, with the update as Telegram sent it.
    clock.now += timedelta(seconds=31)
    orphans = await second.expired()
    assert [update_id for update_id, _ in orphans] == [2, 3]
    assert orphans[0][1] == update_json(message(2))
    assert await second.expired() == []  # already being replayed here
    assert await second.claim(message(2))
    assert not await second.claim(message(1))  # handled long ago
    await second.finish(2, "ok")
    assert await second.backlog() == 1


async def test_a_heartbeat_keeps_a_long_update(db: Database) -> None:
    clock = Clock()
    holder = Inbox(db, "holder", timedelta(seconds=10), clock)
    assert await holder.claim(message(5))
    for _ in range(5):  # 50 s of deep path, renewed every 5 s
        clock.now += timedelta(seconds=5)
        await holder.heartbeat()
    other = Inbox(db, "other", timedelta(seconds=10), clock)
    assert await other.expired() == []
    assert not await other.claim(message(5))


async def test_an_update_that_kills_every_handler_is_given_up(db: Database) -> None:
    clock = Clock()
    assert await Inbox(db, "victim-0", timedelta(seconds=1), clock).claim(message(9))
    for attempt in range(1, MAX_ATTEMPTS):
        clock.now += timedelta(seconds=2)
        assert await Inbox(db, f"victim-{attempt}", timedelta(seconds=1), clock).claim(message(9))
    clock.now += timedelta(seconds=2)
    last = Inbox(db, "last", timedelta(seconds=1), clock)
    assert not await last.claim(message(9))
    async with db.read() as session:
        row = await session.get(UpdateInboxRow, 9)
    assert row is not None and (row.status, row.outcome) == ("done", "poison")


async def test_shutdown_finishes_what_runs_and_gives_back_what_waits(db: Database) -> None:
    """SIGTERM: the update being handled finishes; the ones claimed and queued behind
    it are not handled here but given back, for the next start to replay at once
    (within the lease, and without counting a try)."""
    clock = Clock()
    first = Inbox(db, "first", timedelta(seconds=30), clock)
    seen: list[str] = []
    outcomes: list[tuple[str, str]] = []
    middleware = InboxMiddleware(first, lambda kind, outcome: outcomes.append((kind, outcome)))
    running, release = asyncio.Event(), asyncio.Event()

    async def handler(event: TelegramObject, data: dict[str, Any]) -> None:
        assert isinstance(event, Update) and event.message is not None
        seen.append(str(event.message.text))
        running.set()
        await release.wait()

    stored = await first.store(
        [message(21, text="a"), message(22, text="b"), message(23, text="c")]
    )
    in_progress = asyncio.create_task(middleware(handler, stored[0], {CLAIMED: True}))
    await running.wait()
    first.stop_intake()
    for queued in stored[1:]:
        assert await middleware(handler, queued, {CLAIMED: True}) is None
    release.set()
    await in_progress

    assert seen == ["a"]
    assert outcomes == [("message", "released"), ("message", "released"), ("message", "ok")]
    nxt = Inbox(db, "next", timedelta(seconds=30), clock)  # the clock has not moved
    assert [update_id for update_id, _ in await nxt.expired()] == [22, 23]
    assert await nxt.claim(message(22, text="b")) and await nxt.claim(message(23, text="c"))
    async with db.read() as session:
        rows = {n: await session.get(UpdateInboxRow, n) for n in (21, 22, 23)}
    assert {n: (row.status, row.attempts) for n, row in rows.items() if row} == {
        21: ("done", 1),
        22: ("handling", 1),
        23: ("handling", 1),
    }
