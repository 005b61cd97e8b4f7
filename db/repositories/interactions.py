"""Interaction log maintenance."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import InteractionRow

_INTERACTIONS = cast(Table, InteractionRow.__table__)


async def clear_text_chunk(session: AsyncSession, cutoff: datetime, limit: int) -> int:
    """Blank the raw text of at most ``limit`` interactions older than ``cutoff``, the
    oldest first; metadata stays. Their Telegram ``update_id`` goes too: the inbox
    forgets handled updates after the same week, and after a week without updates
    Telegram may hand out any id again, which must not be taken for a replay. Returns
    how many were cleared (fewer than ``limit``: none are left). The rows are found
    through ``ix_interactions_text_kept``, which holds only rows whose text is still
    there, so a chunk reads what it clears and not the millions cleared before."""
    expired = (
        select(InteractionRow.id)
        .where(InteractionRow.text.is_not(None), InteractionRow.created_at < cutoff)
        .order_by(InteractionRow.created_at, InteractionRow.id)
        .limit(limit)
    )
    result = await session.execute(
        update(InteractionRow)
        .where(InteractionRow.id.in_(expired.scalar_subquery()))
        .values(text=None, update_id=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def newest_of_user(
    session: AsyncSession, user_id: str, limit: int
) -> Sequence[Row[str, str | None, datetime]]:
    """The user's last ``limit`` interactions (intent, text, created_at), newest first."""
    result = await session.execute(
        select(InteractionRow.intent, InteractionRow.text, InteractionRow.created_at)
        .where(InteractionRow.user_id == user_id)
        .order_by(InteractionRow.id.desc())
        .limit(limit)
    )
    return result.all()


async def insert_many(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Insert interactions (column values) with one Core executemany: the table, not
    the entity, so no ORM bulk-insert bookkeeping per row (ORM objects would be one
    INSERT each)."""
    if rows:
        await session.execute(insert(_INTERACTIONS), rows)


async def recorded_update_ids(session: AsyncSession, update_ids: Sequence[int]) -> set[int]:
    """Those of ``update_ids`` (Telegram updates) an interaction was recorded for."""
    column = _INTERACTIONS.c.update_id
    result = await session.execute(select(column).where(column.in_(update_ids)))
    return set(result.scalars().all())
