"""Remembered answers and conversation summaries (db/recall_models.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    AnswerCacheRow,
    ConversationSummaryRow,
    FarmProfileRow,
    InteractionRow,
    OperationRow,
)
from db.repositories.reporting import as_utc
from db.states import AnswerSlot

# -- remembered answers ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RememberedAnswer:
    """A remembered answer as the shortcuts read it (plain data, not the row)."""

    intent: str
    subject: str
    text: str
    created_at: datetime


async def answer(session: AsyncSession, user_id: str, slot: str) -> AnswerCacheRow | None:
    return await session.get(AnswerCacheRow, (user_id, slot))


async def remembered_answer(
    session: AsyncSession, user_id: str, slot: AnswerSlot
) -> RememberedAnswer | None:
    row = await answer(session, user_id, slot)
    if row is None:
        return None
    return RememberedAnswer(row.intent, row.subject, row.text, row.created_at)


async def remember_answer(
    session: AsyncSession,
    *,
    user_id: str,
    slot: AnswerSlot,
    intent: str,
    subject: str,
    trace_id: str,
    text: str,
    created_at: datetime,
) -> None:
    """Insert or overwrite the user's answer in ``slot`` (cut to the columns' lengths)."""
    row = AnswerCacheRow(
        user_id=user_id,
        slot=slot,
        intent=intent,
        subject=subject[:512],
        trace_id=trace_id[:32],
        text=text,
        created_at=created_at,
    )
    await keep_answer(session, row)


async def keep_answer(session: AsyncSession, row: AnswerCacheRow) -> None:
    """Insert or overwrite the user's answer in ``row.slot``."""
    existing = await session.get(AnswerCacheRow, (row.user_id, row.slot))
    if existing is None:
        session.add(row)
        return
    existing.intent, existing.subject, existing.trace_id = row.intent, row.subject, row.trace_id
    existing.text, existing.created_at = row.text, row.created_at


async def drop_answers(session: AsyncSession, user_id: str) -> None:
    await session.execute(delete(AnswerCacheRow).where(AnswerCacheRow.user_id == user_id))


async def drop_farm_sensor_answers(
    session: AsyncSession, farm_id: str, intents: Sequence[str]
) -> None:
    """The remembered answers of the farm's people that a new reading makes stale:
    the status answer, and a repeat of a question of one of ``intents``."""
    people = select(FarmProfileRow.user_id).where(FarmProfileRow.farm_id == farm_id)
    stale = (AnswerCacheRow.slot == AnswerSlot.STATUS) | AnswerCacheRow.intent.in_(list(intents))
    await session.execute(delete(AnswerCacheRow).where(AnswerCacheRow.user_id.in_(people), stale))


async def drop_answers_before(session: AsyncSession, cutoff: datetime) -> int:
    result = await session.execute(delete(AnswerCacheRow).where(AnswerCacheRow.created_at < cutoff))
    return int(getattr(result, "rowcount", 0) or 0)


async def message_text(session: AsyncSession, user_id: str, trace_id: str) -> str | None:
    """The text of the user's own message ``trace_id`` (None: not theirs, or gone)."""
    return await session.scalar(
        select(InteractionRow.text)
        .where(InteractionRow.trace_id == trace_id, InteractionRow.user_id == user_id)
        .order_by(InteractionRow.id.desc())
        .limit(1)
    )


# -- conversations -----------------------------------------------------------------------


async def deep_since(
    session: AsyncSession, user_id: str, since: datetime | None
) -> Sequence[InteractionRow]:
    """The user's deep interactions after ``since`` (all when None), oldest first."""
    query = select(InteractionRow).where(
        InteractionRow.user_id == user_id, InteractionRow.mode == "deep"
    )
    if since is not None:
        query = query.where(InteractionRow.created_at > since)
    return (await session.scalars(query.order_by(InteractionRow.created_at))).all()


async def last_summary_end(session: AsyncSession, user_id: str) -> datetime | None:
    return await session.scalar(
        select(func.max(ConversationSummaryRow.period_end)).where(
            ConversationSummaryRow.user_id == user_id
        )
    )


async def newest_deep(
    session: AsyncSession, after: datetime, until: datetime
) -> dict[str, datetime]:
    """Each user's newest deep interaction in (``after``, ``until``], in UTC. Read
    through the time index (ix_interactions_stats) without grouping in SQL: grouped by
    user, SQLite with planner statistics walked every farmer's index instead (1.4 s at
    100,000 farmers)."""
    newest: dict[str, datetime] = {}
    rows = await session.execute(
        select(InteractionRow.user_id, InteractionRow.created_at).where(
            InteractionRow.mode == "deep",
            InteractionRow.created_at > after,
            InteractionRow.created_at <= until,
        )
    )
    for user_id, at in rows.all():
        moment = as_utc(at)
        if user_id not in newest or moment > newest[user_id]:
            newest[user_id] = moment
    return newest


async def compacted_until(session: AsyncSession, users: Sequence[str]) -> dict[str, datetime]:
    """The end of each of ``users``' last summary (users without one are absent)."""
    rows = await session.execute(
        select(ConversationSummaryRow.user_id, func.max(ConversationSummaryRow.period_end))
        .where(ConversationSummaryRow.user_id.in_(users))
        .group_by(ConversationSummaryRow.user_id)
    )
    return {user: as_utc(end) for user, end in rows.all() if end is not None}


async def summaries(
    session: AsyncSession, user_id: str, limit: int | None = None
) -> Sequence[ConversationSummaryRow]:
    """The user's summaries, newest first."""
    query = (
        select(ConversationSummaryRow)
        .where(ConversationSummaryRow.user_id == user_id)
        .order_by(ConversationSummaryRow.period_end.desc(), ConversationSummaryRow.id.desc())
    )
    if limit is not None:
        query = query.limit(limit)
    return (await session.scalars(query)).all()


async def users_over_window(session: AsyncSession, window: int) -> list[str]:
    rows = await session.execute(
        select(ConversationSummaryRow.user_id)
        .group_by(ConversationSummaryRow.user_id)
        .having(func.count() > window)
    )
    return [str(user_id) for (user_id,) in rows]


async def delete_summary(session: AsyncSession, user_id: str, summary_id: int) -> str | None:
    """Delete the user's summary ``summary_id``; its key, or None if not theirs."""
    row = await session.get(ConversationSummaryRow, summary_id)
    if row is None or row.user_id != user_id:
        return None
    await session.delete(row)
    return row.key


async def decisions_between(
    session: AsyncSession, author: str, since: datetime, until: datetime
) -> list[tuple[str, str]]:
    """(op_type, status) of the journal operations ``author`` wrote in [since, until]."""
    rows = await session.execute(
        select(OperationRow.op_type, OperationRow.status).where(
            OperationRow.author == author,
            OperationRow.created_at >= since,
            OperationRow.created_at <= until,
        )
    )
    return [(op_type, status) for op_type, status in rows]


def add_summary(session: AsyncSession, row: ConversationSummaryRow) -> None:
    """A new summary, inserted at the commit (its unique key guards a second copy)."""
    session.add(row)


async def delete_summaries(session: AsyncSession, rows: Sequence[ConversationSummaryRow]) -> None:
    """Delete summaries this session read."""
    for row in rows:
        await session.delete(row)
