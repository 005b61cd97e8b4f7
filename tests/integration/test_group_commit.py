"""Group commit (db/group_commit.py): the end-of-message writes of concurrent
messages share one transaction, all or nothing per item, on a real migrated SQLite
database. BEGINs are counted with an SQLAlchemy event listener."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from bot.transport.inbox import Inbox
from db.models import InteractionRow, UpdateInboxRow, UserProfileRow
from db.repositories import inbox as inbox_repo
from db.uow import Database
from pipeline.memory import Memory
from pipeline.memory.profiles.recording import InteractionRecord
from pipeline.types import DepthDecision, Intent

NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


@contextmanager
def counted_begins(engine: AsyncEngine) -> Iterator[list[int]]:
    begins = [0]

    def on_begin(_conn: Any) -> None:
        begins[0] += 1

    event.listen(engine.sync_engine, "begin", on_begin)
    try:
        yield begins
    finally:
        event.remove(engine.sync_engine, "begin", on_begin)


def record(n: int, update_id: int | None = None) -> InteractionRecord:
    return InteractionRecord(
        user_id=f"tg:{7000 + n}",
        chat_id=7000 + n,
        trace_id=f"trace{n:04d}",
        text="привіт",
        decision=DepthDecision("light", Intent.GREETING, (), 1.0, "kw"),
        crew=(),
        latency_ms=1.0,
        at=NOW,
        name=f"Farmer{n}",
        language="uk",
        update_id=update_id,
    )


async def store(db: Database, inbox: Inbox, update_ids: list[int]) -> None:
    async with db.write() as session:
        await inbox_repo.store_claimed(
            session,
            [inbox_repo.Stored(u, "{}") for u in update_ids],
            inbox.owner,
            NOW,
            NOW + timedelta(minutes=5),
        )


async def counts(db: Database) -> tuple[int, int, list[str]]:
    async with db.read() as session:
        interactions = await session.scalar(select(func.count()).select_from(InteractionRow))
        users = await session.scalar(
            select(func.sum(UserProfileRow.interaction_count)).select_from(UserProfileRow)
        )
        statuses = (await session.execute(select(UpdateInboxRow.status))).scalars().all()
    return int(interactions or 0), int(users or 0), sorted(statuses)


async def test_records_and_inbox_rows_of_concurrent_messages_commit_in_one_transaction(
    db: Database, engine: AsyncEngine, memory: Memory
) -> None:
    inbox = Inbox(db, "instance-a", timedelta(minutes=5), clock=lambda: NOW)
    update_ids = list(range(100, 110))
    await store(db, inbox, update_ids)
    assert db.turns is not None
    with counted_begins(engine) as begins:
        # While another transaction holds SQLite's writer, ten messages end at once.
        async with db.turns.turn():
            ends = [
                asyncio.ensure_future(memory.interactions.record(record(n, update_id)))
                for n, update_id in enumerate(update_ids)
            ]
            ends += [asyncio.ensure_future(inbox.finish(u, "ok")) for u in update_ids]
            await asyncio.sleep(0)
            assert not any(end.done() for end in ends)  # waiting for their commit
        await asyncio.gather(*ends)
    assert begins[0] == 1
    assert await counts(db) == (10, 10, ["done"] * 10)


async def test_a_bad_item_costs_only_itself(db: Database, memory: Memory) -> None:
    inbox = Inbox(db, "instance-a", timedelta(minutes=5), clock=lambda: NOW)
    await store(db, inbox, [200, 201])
    failing = db.group.lane(_explode, name="explodes")
    assert db.turns is not None
    async with db.turns.turn():
        ends = [
            asyncio.ensure_future(memory.interactions.record(record(1, 200))),
            asyncio.ensure_future(failing.submit("boom")),
            asyncio.ensure_future(inbox.finish(200, "ok")),
            asyncio.ensure_future(inbox.finish(201, "error")),
        ]
        await asyncio.sleep(0)
    await asyncio.gather(*ends)  # never raises: the failure is logged
    # The batch failed as a whole and was written item by item: all but the bad one.
    assert await counts(db) == (1, 1, ["done", "done"])


async def test_a_replayed_update_in_the_same_batch_is_counted_once(
    db: Database, memory: Memory
) -> None:
    await memory.interactions.record(record(3, 300))
    assert db.turns is not None
    async with db.turns.turn():
        ends = [
            asyncio.ensure_future(memory.interactions.record(record(3, 300))),
            asyncio.ensure_future(memory.interactions.record(record(4, 301))),
        ]
        await asyncio.sleep(0)
    await asyncio.gather(*ends)
    assert (await counts(db))[:2] == (2, 2)


async def _explode(session: AsyncSession, items: list[str]) -> None:
    raise RuntimeError(f"cannot write {items}")
