"""SQL access to user and farm profiles. Rows in, rows out; no pipeline types."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmProfileRow, UserProfileRow


async def get_user(session: AsyncSession, user_id: str) -> UserProfileRow | None:
    return await session.get(UserProfileRow, user_id)


async def get_farm(session: AsyncSession, user_id: str) -> FarmProfileRow | None:
    result = await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == user_id))
    return result.scalar_one_or_none()


async def lock_user(session: AsyncSession, user_id: str) -> UserProfileRow | None:
    """The row, re-read and locked for this transaction (FOR UPDATE on PostgreSQL;
    SQLite's BEGIN IMMEDIATE already serialises writers)."""
    result = await session.execute(
        select(UserProfileRow)
        .where(UserProfileRow.user_id == user_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def insert_ignore(session: AsyncSession, model: type[Any], values: dict[str, Any]) -> None:
    """INSERT that does nothing when the key exists: two first messages from the same
    user race to create the profile, and neither may fail."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(insert(model).values(**values).on_conflict_do_nothing())


async def set_active(session: AsyncSession, user_id: str, active: bool) -> None:
    row = await lock_user(session, user_id)
    if row is not None:
        row.active = active
