"""The database's liveness check (/status, readiness)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def ping(session: AsyncSession) -> None:
    """A round trip to the database; raises when it does not answer."""
    await session.execute(text("SELECT 1"))
