"""Remembered answers and conversation summaries (db/recall_models.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import AnswerCacheRow, ConversationSummaryRow, InteractionRow
from db.repositories.reporting import as_utc

# -- remembered answers ------------------------------------------------------------------


async def answer(session: AsyncSession, user_id: str, slot: str) -> AnswerCacheRow | None:
    return await session.get(AnswerCacheRow, (user_id, slot))


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


#: Users whose last summary is read per statement (the size of an IN list).
ENDED_TALK_BATCH = 500


async def users_with_ended_talk(
    session: AsyncSession, since: datetime, quiet_before: datetime
) -> list[str]:
    """Users whose conversation has ended and is not compacted yet: their newest deep
    interaction after ``since`` is older than ``quiet_before`` (the silence) and newer
    than the end of their last summary, sorted.

    Two reads, no grouping in SQL: the deep messages since ``since`` through the time
    index (ix_interactions_stats), the newest per user taken here, then the last
    summary of those candidates only, by key. Grouped by user in SQL, SQLite with
    planner statistics walked every farmer's index instead (1.4 s at 100,000 farmers,
    holding the connection). A farmer whose talks are all compacted costs one row."""
    newest: dict[str, datetime] = {}
    deep = await session.execute(
        select(InteractionRow.user_id, InteractionRow.created_at).where(
            InteractionRow.mode == "deep", InteractionRow.created_at > since
        )
    )
    for user_id, at in deep.all():
        moment = as_utc(at)
        if user_id not in newest or moment > newest[user_id]:
            newest[user_id] = moment
    quiet = as_utc(quiet_before)
    candidates = sorted(user for user, at in newest.items() if at <= quiet)
    ended: list[str] = []
    for start in range(0, len(candidates), ENDED_TALK_BATCH):
        chunk = candidates[start : start + ENDED_TALK_BATCH]
        compacted = await session.execute(
            select(ConversationSummaryRow.user_id, func.max(ConversationSummaryRow.period_end))
            .where(ConversationSummaryRow.user_id.in_(chunk))
            .group_by(ConversationSummaryRow.user_id)
        )
        until = {user: as_utc(end) for user, end in compacted.all() if end is not None}
        ended += [user for user in chunk if user not in until or newest[user] > until[user]]
    return ended


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
