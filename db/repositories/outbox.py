"""SQL access to the memory-service outbox (``memory_outbox``). Rows in, rows out.

Callers own the transaction: enqueue inside the transaction that changes the
profile, read and mark in short transactions of their own (never across a call to
the memory-service).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import OutboxRow

Operation = Literal["upsert", "delete"]


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
        .where(OutboxRow.sent_at.is_(None))
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


async def record_failure(session: AsyncSession, ids: Collection[int], error: str) -> None:
    if not ids:
        return
    await session.execute(
        update(OutboxRow)
        .where(OutboxRow.id.in_(ids), OutboxRow.sent_at.is_(None))
        .values(attempts=OutboxRow.attempts + 1, last_error=error[:256])
        .execution_options(synchronize_session=False)
    )


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


async def backlog(session: AsyncSession) -> int:
    count = await session.scalar(
        select(func.count()).select_from(OutboxRow).where(OutboxRow.sent_at.is_(None))
    )
    return int(count or 0)


def _rowcount(result: Any) -> int:
    return int(getattr(result, "rowcount", 0) or 0)
