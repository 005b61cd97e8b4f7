"""SQL access to the memory-service outbox (``memory_outbox``). Rows in, rows out.

Callers own the transaction: enqueue inside the transaction that changes the
profile, read and mark in short transactions of their own (never across a call to
the memory-service).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Select, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import OutboxRow, TombstoneRow, UserProfileRow
from db.states import OutboxState

Operation = Literal["upsert", "delete", "summary_add", "summary_delete", "summary_purge"]
State = Literal["pending", "config_error", "dead"]
#: Rows the flush still sends (a configuration error is retried once it is fixed).
LIVE: tuple[State, ...] = ("pending", "config_error")


def enqueue(
    session: AsyncSession,
    user_id: str,
    fact_key: str,
    operation: Operation,
    payload: dict[str, Any] | None,
    at: datetime,
) -> None:
    session.add(
        OutboxRow(
            user_id=user_id,
            fact_key=fact_key,
            operation=operation,
            payload=payload,
            attempts=0,
            created_at=at,
            state=OutboxState.PENDING,
        )
    )


async def pending(session: AsyncSession, *, limit: int, per_user: int) -> list[OutboxRow]:
    """Unsent rows in id order, at most ``per_user`` of any one user.

    Each user's rows are a prefix of that user's pending rows (the oldest ones), so
    sending them in order keeps that user's order; the per-user cap stops one user
    whose rows keep failing from filling every batch and starving the others.
    """
    ranked = (
        select(
            OutboxRow.id.label("id"),
            func.row_number()
            .over(partition_by=OutboxRow.user_id, order_by=OutboxRow.id)
            .label("rank"),
        )
        .where(OutboxRow.sent_at.is_(None), OutboxRow.state.in_(LIVE))
        .subquery()
    )
    result = await session.execute(
        select(OutboxRow)
        .join(ranked, ranked.c.id == OutboxRow.id)
        .where(ranked.c.rank <= per_user)
        .order_by(OutboxRow.id)
        .limit(limit)
    )
    return list(result.scalars().all())


async def mark_sent(session: AsyncSession, ids: Collection[int], at: datetime) -> int:
    if not ids:
        return 0
    result = await session.execute(
        update(OutboxRow)
        .where(OutboxRow.id.in_(ids), OutboxRow.sent_at.is_(None))
        .values(sent_at=at)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def delete_ids(session: AsyncSession, ids: Collection[int]) -> int:
    if not ids:
        return 0
    result = await session.execute(
        delete(OutboxRow).where(OutboxRow.id.in_(ids)).execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def record_failure(
    session: AsyncSession, ids: Collection[int], error: str, state: State = "pending"
) -> None:
    """Count a failed attempt; ``state`` says what it was (an outage leaves the rows
    pending, a refusal of the credentials marks them config_error, a refusal of the
    request itself dead)."""
    if not ids:
        return
    await session.execute(
        update(OutboxRow)
        .where(OutboxRow.id.in_(ids), OutboxRow.sent_at.is_(None))
        .values(attempts=OutboxRow.attempts + 1, last_error=error[:256], state=state)
        .execution_options(synchronize_session=False)
    )


async def supersede_upserts(session: AsyncSession, user_id: str) -> int:
    """Drop a user's unsent upserts (a merged profile queued after them carries it all)."""
    result = await session.execute(
        delete(OutboxRow)
        .where(
            OutboxRow.user_id == user_id,
            OutboxRow.operation == "upsert",
            OutboxRow.sent_at.is_(None),
            OutboxRow.state.in_(LIVE),
        )
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def counts_by_state(session: AsyncSession) -> dict[str, int]:
    """Unsent rows per state (pending, config_error, dead)."""
    result = await session.execute(
        select(OutboxRow.state, func.count())
        .where(OutboxRow.sent_at.is_(None))
        .group_by(OutboxRow.state)
    )
    return {str(state): int(count) for state, count in result.all()}


async def dead_letters(session: AsyncSession, *, limit: int) -> list[OutboxRow]:
    result = await session.execute(
        select(OutboxRow)
        .where(OutboxRow.sent_at.is_(None), OutboxRow.state == OutboxState.DEAD)
        .order_by(OutboxRow.id)
        .limit(limit)
    )
    return list(result.scalars().all())


async def latest_config_error(session: AsyncSession) -> str | None:
    return await session.scalar(
        select(OutboxRow.last_error)
        .where(OutboxRow.sent_at.is_(None), OutboxRow.state == OutboxState.CONFIG_ERROR)
        .order_by(OutboxRow.id.desc())
        .limit(1)
    )


async def requeue(session: AsyncSession, states: Collection[State]) -> int:
    """Rows in ``states`` go back to pending with a fresh attempt count."""
    result = await session.execute(
        update(OutboxRow)
        .where(OutboxRow.sent_at.is_(None), OutboxRow.state.in_(list(states)))
        .values(state=OutboxState.PENDING, attempts=0)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def prune_sent(session: AsyncSession, before: datetime) -> int:
    result = await session.execute(
        delete(OutboxRow)
        .where(OutboxRow.sent_at.is_not(None), OutboxRow.sent_at < before)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def delete_for_user(session: AsyncSession, user_id: str) -> int:
    result = await session.execute(
        delete(OutboxRow)
        .where(OutboxRow.user_id == user_id)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


def live_count_query() -> Select[int]:
    """Counts rows still to send; callers may narrow it with ``.where``."""
    return (
        select(func.count())
        .select_from(OutboxRow)
        .where(OutboxRow.sent_at.is_(None), OutboxRow.state.in_(LIVE))
    )


async def live_count_of(session: AsyncSession, user_id: str) -> int | None:
    """The user's rows still to send."""
    return await session.scalar(live_count_query().where(OutboxRow.user_id == user_id))


async def backlog(session: AsyncSession) -> int:
    """Rows still to send (dead letters wait for an operator and are not counted)."""
    return int(await session.scalar(live_count_query()) or 0)


# -- the merge marker and /forget tombstones -------------------------------------------


async def to_merge(session: AsyncSession, user_ids: Collection[str]) -> set[str]:
    """Which of these users have a profile whose remote copy must be merged first."""
    if not user_ids:
        return set()
    result = await session.execute(
        select(UserProfileRow.user_id).where(
            UserProfileRow.user_id.in_(list(user_ids)), UserProfileRow.remote_merge.is_not(None)
        )
    )
    return set(result.scalars().all())


async def tombstone(session: AsyncSession, user_id: str) -> TombstoneRow | None:
    return await session.get(TombstoneRow, user_id)


async def bury(session: AsyncSession, user_id: str, at: datetime) -> None:
    """Write (or renew) the user's tombstone: a forget not yet confirmed remotely."""
    row = await session.get(TombstoneRow, user_id)
    if row is None:
        session.add(TombstoneRow(user_id=user_id, forgotten_at=at, confirmed_at=None))
    else:
        row.forgotten_at, row.confirmed_at = at, None


async def confirm_forgotten(session: AsyncSession, user_ids: Collection[str], at: datetime) -> int:
    """Mark tombstones confirmed for users with no unsent delete left."""
    if not user_ids:
        return 0
    waiting = select(OutboxRow.user_id).where(
        OutboxRow.user_id.in_(list(user_ids)),
        OutboxRow.operation.in_(["delete", "summary_purge"]),
        OutboxRow.sent_at.is_(None),
    )
    result = await session.execute(
        update(TombstoneRow)
        .where(
            TombstoneRow.user_id.in_(list(user_ids)),
            TombstoneRow.confirmed_at.is_(None),
            TombstoneRow.user_id.not_in(waiting),
        )
        .values(confirmed_at=at)
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


def _rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0) or 0)
