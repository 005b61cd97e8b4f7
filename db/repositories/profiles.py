"""SQL access to user and farm profiles. Rows in, rows out; no pipeline types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, bindparam, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    AgronomistQuestionRow,
    AnswerCacheRow,
    ConversationSummaryRow,
    FarmProfileRow,
    HandoffRow,
    InteractionRow,
    UserProfileRow,
)


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


async def lock_users(session: AsyncSession, user_ids: Sequence[str]) -> Sequence[UserProfileRow]:
    """Several rows in one statement, re-read and locked (see lock_user)."""
    if not user_ids:
        return []
    result = await session.execute(
        select(UserProfileRow)
        .where(UserProfileRow.user_id.in_(user_ids))
        .order_by(UserProfileRow.user_id)  # one lock order: no deadlock on PostgreSQL
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return result.scalars().all()


_USERS = cast(Table, UserProfileRow.__table__)


def user_values(row: UserProfileRow) -> dict[str, Any]:
    """An ORM row's column values, as ``lock_user_values`` gives them."""
    return {column.key: getattr(row, column.key) for column in _USERS.columns}


async def lock_user_values(
    session: AsyncSession, user_ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """``lock_users`` as plain column values by user id: a Core read, no ORM objects
    to load (nor to flush afterwards). ``write_user_values`` writes changes back."""
    if not user_ids:
        return {}
    result = await session.execute(
        select(_USERS)
        .where(_USERS.c.user_id.in_(user_ids))
        .order_by(_USERS.c.user_id)  # one lock order: no deadlock on PostgreSQL
        .with_for_update()
    )
    return {row.user_id: dict(row._mapping) for row in result}


async def write_user_values(
    session: AsyncSession, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]
) -> None:
    """Write ``columns`` of each row (found by its ``user_id``): one executemany
    UPDATE, whatever changed in which row. Bypasses the session's ORM objects: use it
    only on rows read with ``lock_user_values``."""
    if not rows:
        return
    statement = (
        update(_USERS)
        .where(_USERS.c.user_id == bindparam("key_user_id"))
        .values({column: bindparam(f"new_{column}") for column in columns})
    )
    await session.execute(
        statement,
        [{"key_user_id": row["user_id"], **{f"new_{c}": row[c] for c in columns}} for row in rows],
    )


async def get_farms(session: AsyncSession, user_ids: Sequence[str]) -> Sequence[FarmProfileRow]:
    if not user_ids:
        return []
    result = await session.execute(
        select(FarmProfileRow).where(FarmProfileRow.user_id.in_(user_ids))
    )
    return result.scalars().all()


async def lock_farm(session: AsyncSession, user_id: str) -> FarmProfileRow | None:
    result = await session.execute(
        select(FarmProfileRow)
        .where(FarmProfileRow.user_id == user_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return result.scalar_one_or_none()


async def lock_farms(session: AsyncSession, user_ids: Sequence[str]) -> Sequence[FarmProfileRow]:
    """``lock_farm`` for several users in one statement (in user order)."""
    if not user_ids:
        return []
    result = await session.execute(
        select(FarmProfileRow)
        .where(FarmProfileRow.user_id.in_(user_ids))
        .order_by(FarmProfileRow.user_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return result.scalars().all()


def dialect_insert(session: AsyncSession) -> Any:
    """The INSERT construct of the session's dialect (it has ON CONFLICT DO NOTHING)."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


async def insert_ignore(session: AsyncSession, model: type[Any], values: dict[str, Any]) -> bool:
    """INSERT that does nothing when the key exists: two first messages from the same
    user race to create the profile, and neither may fail. True if it inserted."""
    insert = dialect_insert(session)
    result = await session.execute(insert(model).values(**values).on_conflict_do_nothing())
    return bool(getattr(result, "rowcount", 0))


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the expertise rule reads of a user (not the whole row: a sweep reads
    100,000 of them, and building ORM rows was most of its CPU)."""

    user_id: str
    expertise_level: str
    interaction_count: int
    known_intents: list[str]
    expertise_locked: bool


async def upgrade_candidates(
    session: AsyncSession, *, min_interactions: int, after: str, limit: int
) -> list[Candidate]:
    """Users the expertise rule might move up (not expert, not locked by an operator),
    by user id after ``after``, so a sweep can walk the table in short chunks."""
    result = await session.execute(
        select(
            UserProfileRow.user_id,
            UserProfileRow.expertise_level,
            UserProfileRow.interaction_count,
            UserProfileRow.known_intents,
            UserProfileRow.expertise_locked,
        )
        .where(
            UserProfileRow.expertise_locked.is_(False),
            UserProfileRow.expertise_level != "expert",
            UserProfileRow.interaction_count >= min_interactions,
            UserProfileRow.user_id > after,
        )
        .order_by(UserProfileRow.user_id)
        .limit(limit)
    )
    return [
        Candidate(user_id, level, count or 0, intents or [], locked)
        for user_id, level, count, intents, locked in result
    ]


async def delete_user_data(session: AsyncSession, user_id: str) -> None:
    """Everything stored about one user in the profile tables and the interaction log."""
    # The agronomist desk's questions hold the farmer's words: they go too, and so do
    # the remembered answers and the conversation summaries (pipeline/recall/).
    for model in (
        InteractionRow,
        FarmProfileRow,
        UserProfileRow,
        AgronomistQuestionRow,
        AnswerCacheRow,
        ConversationSummaryRow,
    ):
        await session.execute(
            delete(model)
            .where(model.user_id == user_id)
            .execution_options(synchronize_session="fetch")
        )
    # A pending handoff offer still holds the question: it goes; the decision stays,
    # anonymous, for the handoff figures.
    await session.execute(
        update(HandoffRow)
        .where(HandoffRow.user_id == user_id)
        .values(user_id=None, question=None)
        .execution_options(synchronize_session=False)
    )


async def set_active(session: AsyncSession, user_id: str, active: bool) -> None:
    row = await lock_user(session, user_id)
    if row is not None:
        row.active = active


async def set_remote_merge(
    session: AsyncSession, user_id: str, remote_merge: dict[str, list[str]] | None
) -> None:
    """The user's merge marker (``remote_merge``), leaving ``updated_at`` as it is: the
    time the queued copy carries. A Core update: the session's row is not refreshed."""
    await session.execute(
        update(UserProfileRow)
        .where(UserProfileRow.user_id == user_id)
        .values(remote_merge=remote_merge, updated_at=UserProfileRow.updated_at)
        .execution_options(synchronize_session=False)
    )


async def some_user_ids(session: AsyncSession, *, limit: int) -> list[str]:
    """Up to ``limit`` user ids, any (is there more than one farmer?)."""
    result = await session.execute(
        select(UserProfileRow.user_id).order_by(UserProfileRow.user_id).limit(limit)
    )
    return list(result.scalars())
