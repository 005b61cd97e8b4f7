"""Interaction log maintenance."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import InteractionRow


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
