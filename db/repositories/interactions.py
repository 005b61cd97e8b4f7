"""Interaction log maintenance."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import InteractionRow


async def drop_text_before(session: AsyncSession, cutoff: datetime) -> int:
    """Blank the raw text of interactions older than ``cutoff``; metadata stays."""
    result = await session.execute(
        update(InteractionRow)
        .where(InteractionRow.created_at < cutoff, InteractionRow.text.is_not(None))
        .values(text=None)
    )
    return int(getattr(result, "rowcount", 0) or 0)
