"""The update_inbox table: one row per Telegram update, claimed before its side effects.

A row is ``handling`` while some instance holds its lease (``claimed_by`` until
``claimed_until``) and ``done`` once handled. Claims are single statements (an
INSERT ... ON CONFLICT DO NOTHING, a conditional UPDATE), so on PostgreSQL and
SQLite alike exactly one instance wins an update, however many try at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, case, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import UpdateInboxRow
from db.repositories.profiles import dialect_insert
from db.states import InboxStatus

#: The table itself for the statements of every update (store, finish): Core, without
#: the ORM's bulk bookkeeping and session synchronisation.
_TABLE = cast(Table, UpdateInboxRow.__table__)

HANDLING = InboxStatus.HANDLING
DONE = InboxStatus.DONE


@dataclass(frozen=True, slots=True)
class Stored:
    """An update to store: its id and the JSON Telegram sent."""

    update_id: int
    payload: str


async def store_claimed(
    session: AsyncSession,
    updates: Sequence[Stored],
    owner: str,
    now: datetime,
    until: datetime,
) -> set[int]:
    """Insert the updates claimed by ``owner``; returns the ids that were new (the
    others are already known: a redelivery, dropped by the caller)."""
    if not updates:
        return set()
    insert = dialect_insert(session)
    rows = [
        {
            "update_id": update.update_id,
            "payload": update.payload,
            "status": HANDLING,
            "claimed_by": owner,
            "claimed_until": until,
            "attempts": 1,
            "received_at": now,
        }
        for update in updates
    ]
    # Rows as executemany parameters, not .values(rows): one cached statement
    # whatever the batch size (a multi-row VALUES is compiled anew every time).
    result = await session.execute(
        insert(_TABLE)
        .on_conflict_do_nothing(index_elements=["update_id"])
        .returning(_TABLE.c.update_id),
        rows,
    )
    return set(result.scalars().all())


async def reclaim(
    session: AsyncSession, update_id: int, owner: str, now: datetime, until: datetime
) -> bool:
    """Take over a stored update whose lease ran out (its holder died); True if won."""
    result = await session.execute(
        update(UpdateInboxRow)
        .where(
            UpdateInboxRow.update_id == update_id,
            UpdateInboxRow.status == HANDLING,
            or_(UpdateInboxRow.claimed_until.is_(None), UpdateInboxRow.claimed_until < now),
        )
        .values(claimed_by=owner, claimed_until=until, attempts=UpdateInboxRow.attempts + 1)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


async def _update_held(
    session: AsyncSession, update_ids: Sequence[int], owner: str, **values: Any
) -> int:
    """Change the rows ``owner`` holds among ``update_ids`` (still being handled)."""
    if not update_ids:
        return 0
    result = await session.execute(
        update(UpdateInboxRow)
        .where(
            UpdateInboxRow.update_id.in_(update_ids),
            UpdateInboxRow.claimed_by == owner,
            UpdateInboxRow.status == HANDLING,
        )
        .values(**values)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def renew(
    session: AsyncSession, update_ids: Sequence[int], owner: str, until: datetime
) -> int:
    """Extend the leases ``owner`` holds on these updates (a heartbeat)."""
    return await _update_held(session, update_ids, owner, claimed_until=until)


async def release(session: AsyncSession, update_ids: Sequence[int], owner: str) -> int:
    """Give back updates ``owner`` claimed and never started (it is shutting down):
    any instance may replay them at once, and the try does not count as an attempt."""
    attempts = case((UpdateInboxRow.attempts > 0, UpdateInboxRow.attempts - 1), else_=0)
    return await _update_held(
        session, update_ids, owner, claimed_by=None, claimed_until=None, attempts=attempts
    )


async def progress(session: AsyncSession, update_id: int, owner: str, sent: int) -> None:
    """``sent`` parts of the update's reply went through (while ``owner`` holds it)."""
    await session.execute(
        update(UpdateInboxRow)
        .where(
            UpdateInboxRow.update_id == update_id,
            UpdateInboxRow.claimed_by == owner,
            UpdateInboxRow.status == HANDLING,
        )
        .values(replies_sent=sent)
    )


async def finish(
    session: AsyncSession, update_ids: Sequence[int], owner: str, now: datetime, outcome: str
) -> None:
    """Mark handled (rows still being handled: an update marked done earlier, as a
    reply kept for flood control marks it ``deferred``, keeps its outcome); the
    payload (the farmer's raw text) is not kept."""
    await session.execute(
        update(_TABLE)
        .where(
            _TABLE.c.update_id.in_(update_ids),
            _TABLE.c.claimed_by == owner,
            _TABLE.c.status == HANDLING,
        )
        .values(
            status=DONE,
            payload=None,
            claimed_until=None,
            finished_at=now,
            outcome=outcome,
        )
    )


async def expired(session: AsyncSession, now: datetime, limit: int) -> list[tuple[int, str]]:
    """Updates nobody holds a live lease on, oldest first: ``(update_id, payload)``."""
    result = await session.execute(
        select(UpdateInboxRow.update_id, UpdateInboxRow.payload)
        .where(
            UpdateInboxRow.status == HANDLING,
            or_(UpdateInboxRow.claimed_until.is_(None), UpdateInboxRow.claimed_until < now),
        )
        .order_by(UpdateInboxRow.update_id)
        .limit(limit)
    )
    return [(int(update_id), payload or "") for update_id, payload in result.all()]


async def backlog(session: AsyncSession) -> int:
    """Updates stored and not yet handled (held or waiting for a replay)."""
    result = await session.execute(
        select(func.count()).select_from(UpdateInboxRow).where(UpdateInboxRow.status == HANDLING)
    )
    return int(result.scalar_one())


async def last_update_id(session: AsyncSession) -> int | None:
    result = await session.execute(select(func.max(UpdateInboxRow.update_id)))
    value = result.scalar_one_or_none()
    return int(value) if value is not None else None


async def drop_done_before(session: AsyncSession, cutoff: datetime, limit: int) -> int:
    """Forget at most ``limit`` handled updates older than ``cutoff``, the oldest ids
    first (Telegram redelivers for a day at most, so a week of ids is plenty to catch
    duplicates). Fewer than ``limit`` forgotten: none are left."""
    expired = (
        select(UpdateInboxRow.update_id)
        .where(UpdateInboxRow.status == DONE, UpdateInboxRow.finished_at < cutoff)
        .order_by(UpdateInboxRow.update_id)
        .limit(limit)
    )
    result = await session.execute(
        delete(UpdateInboxRow)
        .where(UpdateInboxRow.update_id.in_(expired.scalar_subquery()))
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)
