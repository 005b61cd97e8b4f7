"""Feedback, learnings and corrections (docs/learning.md). Never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import CorrectionRow, FeedbackRow, InteractionRow, LearningRow


async def interaction(session: AsyncSession, trace_id: str) -> InteractionRow | None:
    """The newest interaction of ``trace_id`` (one message has one)."""
    return (
        await session.scalars(
            select(InteractionRow)
            .where(InteractionRow.trace_id == trace_id)
            .order_by(InteractionRow.id.desc())
            .limit(1)
        )
    ).first()


async def last_interaction(session: AsyncSession, user_id: str) -> InteractionRow | None:
    return (
        await session.scalars(
            select(InteractionRow)
            .where(InteractionRow.user_id == user_id)
            .order_by(InteractionRow.id.desc())
            .limit(1)
        )
    ).first()


async def feedback(session: AsyncSession, trace_id: str, user_id: str) -> FeedbackRow | None:
    return (
        await session.scalars(
            select(FeedbackRow).where(
                FeedbackRow.trace_id == trace_id, FeedbackRow.user_id == user_id
            )
        )
    ).first()


async def learning_for(session: AsyncSession, trace_id: str) -> LearningRow | None:
    return (
        await session.scalars(select(LearningRow).where(LearningRow.trace_id == trace_id))
    ).first()


async def newest_learnings(session: AsyncSession, limit: int) -> Sequence[LearningRow]:
    return (
        await session.scalars(select(LearningRow).order_by(LearningRow.id.desc()).limit(limit))
    ).all()


async def delete_learning(session: AsyncSession, learning_id: int) -> bool:
    result = await session.execute(delete(LearningRow).where(LearningRow.id == learning_id))
    return bool(getattr(result, "rowcount", 0))


async def correction(session: AsyncSession, trace_id: str) -> CorrectionRow | None:
    return (
        await session.scalars(select(CorrectionRow).where(CorrectionRow.trace_id == trace_id))
    ).first()


async def corrections(session: AsyncSession) -> Sequence[CorrectionRow]:
    return (await session.scalars(select(CorrectionRow).order_by(CorrectionRow.id))).all()
