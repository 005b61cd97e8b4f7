"""What profiles learn from (pipeline/memory/habits/learner.py): interaction counts per
intent, the journal's operations in a window, the farms to sweep, the operator
flag. Rows and tuples in and out; no pipeline types."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from sqlalchemy import Row, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmProfileRow, InteractionRow, OperationRow, UserProfileRow


async def intent_counts(
    session: AsyncSession, user_ids: Sequence[str], since: datetime
) -> Sequence[Row[str, str, int, datetime]]:
    """(user_id, intent, count, last time) of each user's interactions since ``since``
    (from ix_interactions_user_created_intent alone)."""
    if not user_ids:
        return []
    result = await session.execute(
        select(
            InteractionRow.user_id,
            InteractionRow.intent,
            func.count(),
            func.max(InteractionRow.created_at),
        )
        .where(InteractionRow.user_id.in_(user_ids), InteractionRow.created_at >= since)
        .group_by(InteractionRow.user_id, InteractionRow.intent)
    )
    return result.all()


async def journal_ops(
    session: AsyncSession, farm_ids: Sequence[str], start: date, end: date
) -> Sequence[Row[str, str, date, str]]:
    """(farm_id, op_type, op_date, status) of the farms' operations in [start, end]."""
    if not farm_ids:
        return []
    result = await session.execute(
        select(
            OperationRow.farm_id, OperationRow.op_type, OperationRow.op_date, OperationRow.status
        ).where(OperationRow.farm_id.in_(farm_ids), OperationRow.op_date.between(start, end))
    )
    return result.all()


async def farms_after(session: AsyncSession, after: str, limit: int) -> Sequence[FarmProfileRow]:
    """Farms by owner id after ``after``: a sweep walks the table in short chunks."""
    result = await session.execute(
        select(FarmProfileRow)
        .where(FarmProfileRow.user_id > after)
        .order_by(FarmProfileRow.user_id)
        .limit(limit)
    )
    return result.scalars().all()


async def farm_by_id(session: AsyncSession, farm_id: str) -> FarmProfileRow | None:
    result = await session.execute(select(FarmProfileRow).where(FarmProfileRow.farm_id == farm_id))
    return result.scalar_one_or_none()


async def operator_mismatches(session: AsyncSession, operator_ids: Sequence[str]) -> Sequence[str]:
    """Users whose stored operator flag disagrees with ``operator_ids``."""
    listed = UserProfileRow.user_id.in_(operator_ids) if operator_ids else None
    wrong = (
        (listed & UserProfileRow.operator.is_(False))
        | (~listed & UserProfileRow.operator.is_(True))
        if listed is not None
        else UserProfileRow.operator.is_(True)
    )
    result = await session.execute(select(UserProfileRow.user_id).where(wrong))
    return list(result.scalars().all())
