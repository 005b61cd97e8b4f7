"""The quality figures' SQL (pipeline/learning/stats.py, pipeline/learning/nightly.py):
aggregates over a period's interactions, feedback, corrections and the memory-service
outbox. Counts and sums only; nothing loads the rows. Never commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import CorrectionRow, FeedbackRow, InteractionRow, OutboxRow
from db.repositories.time_buckets import bucket_of

#: A calendar day in seconds: the width of the daily chart's buckets.
DAY_SECONDS = 86_400


async def latency_at(
    session: AsyncSession, since: datetime, mode: str, offset: int
) -> float | None:
    """The ``offset``-th smallest latency (0 the smallest) of ``mode`` since ``since``."""
    return await session.scalar(
        select(InteractionRow.latency_ms)
        .where(InteractionRow.created_at >= since, InteractionRow.mode == mode)
        .order_by(InteractionRow.latency_ms)
        .limit(1)
        .offset(offset)
    )


def _mix() -> list[Any]:
    """The counts behind the shares: messages, light, deep, deep with 1-2 crews,
    evaluated, passed the evals (in that order)."""
    rows = InteractionRow
    deep = rows.mode == "deep"
    return [
        func.count(),
        func.sum(case((rows.mode == "light", 1), else_=0)),
        func.sum(case((deep, 1), else_=0)),
        func.sum(case((deep & rows.crew_size.between(1, 2), 1), else_=0)),
        func.count(rows.eval_warnings),
        func.sum(case((rows.eval_warnings == 0, 1), else_=0)),
    ]


async def interaction_mix(session: AsyncSession, since: datetime) -> tuple[int, ...]:
    """Since ``since``: messages, light, deep, deep with 1-2 crews, evaluated, passed
    the evals (in that order)."""
    row = (await session.execute(select(*_mix()).where(InteractionRow.created_at >= since))).one()
    return tuple(int(v or 0) for v in row)


async def interaction_mix_by_day(
    session: AsyncSession, since: datetime, until: datetime, offset: int
) -> list[tuple[Any, ...]]:
    """(day number, then the counts of ``interaction_mix``) per day of a calendar
    ``offset`` seconds from UTC, for ``since`` <= time < ``until``."""
    day = bucket_of(InteractionRow.created_at, DAY_SECONDS, offset).label("day")
    rows = (
        await session.execute(
            select(day, *_mix())
            .where(
                InteractionRow.created_at >= since,
                InteractionRow.created_at < until,
            )
            .group_by(day)
        )
    ).all()
    return [tuple(row) for row in rows]


async def verdict_counts(session: AsyncSession, since: datetime) -> dict[str, int]:
    """How many 👍 (``up``) and 👎 (``down``) since ``since``."""
    return dict(
        (
            await session.execute(
                select(FeedbackRow.verdict, func.count())
                .where(FeedbackRow.created_at >= since)
                .group_by(FeedbackRow.verdict)
            )
        ).all()
    )


async def count_corrections_since(session: AsyncSession, since: datetime) -> int | None:
    return await session.scalar(
        select(func.count()).select_from(CorrectionRow).where(CorrectionRow.created_at >= since)
    )


async def outbox_unsent(session: AsyncSession) -> Row[Any, Any, Any]:
    """Of the outbox rows not sent: how many wait (not dead), how many are dead, and
    when the oldest waiting one was queued (SQLite: as text)."""
    return (
        await session.execute(
            select(
                func.sum(case((OutboxRow.state != "dead", 1), else_=0)),
                func.sum(case((OutboxRow.state == "dead", 1), else_=0)),
                func.min(case((OutboxRow.state != "dead", OutboxRow.created_at), else_=None)),
            ).where(OutboxRow.sent_at.is_(None))
        )
    ).one()


async def intent_outcomes(
    session: AsyncSession, since: datetime
) -> Sequence[Row[str, int, Any, Any, Any]]:
    """Per intent since ``since``: (intent, replies, failed, 👍, 👎); a reply failed
    when its evals warned or it got a 👎. One grouped SELECT, by intent."""
    down = case((FeedbackRow.verdict == "down", 1), else_=0)
    up = case((FeedbackRow.verdict == "up", 1), else_=0)
    failed = case(
        ((InteractionRow.eval_warnings > 0) | (FeedbackRow.verdict == "down"), 1), else_=0
    )
    rows: Sequence[Row[str, int, Any, Any, Any]] = (
        await session.execute(
            select(
                InteractionRow.intent,
                func.count(func.distinct(InteractionRow.id)),
                func.sum(failed),
                func.sum(up),
                func.sum(down),
            )
            # A verdict is given after its reply, so only the window's feedback
            # can match: bounded by ix_feedback_created, not read whole.
            .join(
                FeedbackRow,
                (FeedbackRow.trace_id == InteractionRow.trace_id)
                & (FeedbackRow.created_at >= since),
                isouter=True,
            )
            .where(InteractionRow.created_at >= since)
            .group_by(InteractionRow.intent)
            .order_by(InteractionRow.intent)
        )
    ).all()
    return rows
