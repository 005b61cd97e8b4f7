"""The telegram_outbox table: Bot API calls waiting out flood control (bot/delivery/deferred.py).

A row is held by the instance that waits (``claimed_by`` until ``claimed_until``,
renewed by its heartbeat); a row nobody holds is sent by whichever instance sweeps
once ``not_before`` has passed. Claims are single conditional UPDATEs, so exactly
one instance sends a row. The parts of one reply are a chain: each row names the
one before it (``after_id``) and is not due while that one is still here, so they
go in order. Nothing here commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from db.models import TelegramOutboxRow


@dataclass(frozen=True, slots=True)
class Kept:
    id: int
    method: str
    payload: str
    #: A send of it timed out before: one more timeout ends its resends.
    timed_out: bool = False


_KEPT = (
    TelegramOutboxRow.id,
    TelegramOutboxRow.method,
    TelegramOutboxRow.payload,
    TelegramOutboxRow.timed_out,
)


def _kept(row: Any) -> Kept:
    return Kept(int(row[0]), row[1], row[2], bool(row[3]))


async def keep(
    session: AsyncSession,
    *,
    method: str,
    payload: str,
    chat_id: int | None,
    update_id: int | None,
    not_before: datetime,
    owner: str,
    until: datetime,
    after_id: int | None = None,
) -> int:
    """A new row, held by ``owner``; ``after_id``: the row of the part before it in the
    same reply, which must go first."""
    row = TelegramOutboxRow(
        method=method,
        payload=payload,
        chat_id=chat_id,
        update_id=update_id,
        not_before=not_before,
        claimed_by=owner,
        claimed_until=until,
        attempts=0,
        after_id=after_id,
    )
    session.add(row)
    await session.flush()
    return row.id


async def drop(session: AsyncSession, row_id: int) -> None:
    await session.execute(delete(TelegramOutboxRow).where(TelegramOutboxRow.id == row_id))


async def renew(session: AsyncSession, ids: Sequence[int], owner: str, until: datetime) -> None:
    if ids:
        await session.execute(
            update(TelegramOutboxRow)
            .where(TelegramOutboxRow.id.in_(ids), TelegramOutboxRow.claimed_by == owner)
            .values(claimed_until=until)
        )


async def postpone(session: AsyncSession, ids: Sequence[int], not_before: datetime) -> None:
    """Not sent yet (flood control again, or the waiting instance gave up): free for
    any instance once ``not_before`` has passed."""
    if ids:
        await session.execute(
            update(TelegramOutboxRow)
            .where(TelegramOutboxRow.id.in_(ids))
            .values(
                not_before=not_before,
                claimed_by=None,
                claimed_until=None,
                attempts=TelegramOutboxRow.attempts + 1,
            )
        )


_BEFORE = aliased(TelegramOutboxRow)


async def due(session: AsyncSession, now: datetime, limit: int) -> list[Kept]:
    """Rows nobody holds whose wait is over and whose part before (``after_id``) is
    gone, oldest first (a chat's replies keep their order)."""
    result = await session.execute(
        select(*_KEPT)
        .where(
            TelegramOutboxRow.not_before <= now,
            or_(TelegramOutboxRow.claimed_until.is_(None), TelegramOutboxRow.claimed_until < now),
            or_(
                TelegramOutboxRow.after_id.is_(None),
                ~exists().where(_BEFORE.id == TelegramOutboxRow.after_id),
            ),
        )
        .order_by(TelegramOutboxRow.id)
        .limit(limit)
    )
    return [_kept(row) for row in result.all()]


async def following(session: AsyncSession, row_id: int) -> Kept | None:
    """The row of the part right after ``row_id``'s in its reply."""
    result = await session.execute(
        select(*_KEPT)
        .where(TelegramOutboxRow.after_id == row_id)
        .order_by(TelegramOutboxRow.id)
        .limit(1)
    )
    row = result.first()
    return _kept(row) if row is not None else None


async def mark_timed_out(session: AsyncSession, row_id: int) -> None:
    await session.execute(
        update(TelegramOutboxRow).where(TelegramOutboxRow.id == row_id).values(timed_out=True)
    )


async def claim(
    session: AsyncSession, row_id: int, owner: str, now: datetime, until: datetime
) -> bool:
    result = await session.execute(
        update(TelegramOutboxRow)
        .where(
            TelegramOutboxRow.id == row_id,
            or_(TelegramOutboxRow.claimed_until.is_(None), TelegramOutboxRow.claimed_until < now),
        )
        .values(claimed_by=owner, claimed_until=until)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


async def forget_chat(session: AsyncSession, chat_id: int) -> int:
    """/forget: every kept call to that chat goes, waiting or already sent (a row
    whose send went through but whose delete did not commit), held or not: the
    user asked to be forgotten, and a reply to them is their words."""
    result = await session.execute(
        delete(TelegramOutboxRow).where(TelegramOutboxRow.chat_id == chat_id)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def backlog(session: AsyncSession) -> int:
    result = await session.execute(select(func.count()).select_from(TelegramOutboxRow))
    return int(result.scalar_one())


async def release(session: AsyncSession, ids: Sequence[int], owner: str) -> None:
    """The holder stops (shutdown): its rows are free for whoever sweeps once due."""
    if ids:
        await session.execute(
            update(TelegramOutboxRow)
            .where(TelegramOutboxRow.id.in_(ids), TelegramOutboxRow.claimed_by == owner)
            .values(claimed_by=None, claimed_until=None)
        )
