"""The journal's drafts and entries as its use cases change them: a card cancelled or
stored after a press (the draft row is the one ``farm.draft`` locked), and the
entries a correction, a delete, an undo or a plan marked done reads and changes,
each change kept as a revision (``operation_revisions``).

Entries leave here as :class:`Entry` (plain values, never a row), so the journal's
edits never touch the ORM."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import select, update

from db.models import (
    FarmProfileRow,
    OperationDraftRow,
    OperationRevisionRow,
    OperationRow,
    UserProfileRow,
)
from db.repositories.profiles import insert_ignore
from db.states import DraftStatus, OperationStatus, RevisionKind
from db.uow import Session

__all__ = [
    "ENTRY_COLUMNS",
    "Entry",
    "Revision",
    "actor_names",
    "add_revision",
    "cancel_draft",
    "change_entry",
    "entry",
    "entry_by_source",
    "farm_entries",
    "keep_draft",
    "last_entries",
    "mark_reminded",
    "open_cards",
    "overdue_plans",
    "planned_entries",
    "revisions_between",
    "revisions_of",
    "revisions_of_draft",
    "set_deleted",
]

#: The values of an entry a correction can change, as a revision keeps them.
ENTRY_COLUMNS = (
    "op_type", "field_id", "crop_id", "quantity", "unit", "product", "rate", "rate_unit",
    "amount", "amount_unit", "area_ha", "yield_t_ha", "op_date", "status",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Entry:
    id: int
    farm_id: str
    author: str
    #: ``ENTRY_COLUMNS`` -> value; ``op_date`` a ``date``.
    values: Mapping[str, Any]
    created_at: datetime
    deleted: bool = False

    def snapshot(self) -> dict[str, Any]:
        """The values as JSON keeps them (the date as ISO text)."""
        return snapshot(self.values)


@dataclass(frozen=True, slots=True)
class Revision:
    id: int
    operation_id: int
    kind: RevisionKind
    actor: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    draft_id: int | None
    created_at: datetime


def snapshot(values: Mapping[str, Any]) -> dict[str, Any]:
    out = {column: values.get(column) for column in ENTRY_COLUMNS}
    if isinstance(out["op_date"], date):
        out["op_date"] = out["op_date"].isoformat()
    return out


def _entry(row: OperationRow) -> Entry:
    values = {column: getattr(row, column) for column in ENTRY_COLUMNS}
    return Entry(
        row.id, row.farm_id, row.author, values, row.created_at, row.deleted_at is not None
    )


def _revision(row: OperationRevisionRow) -> Revision:
    return Revision(row.id, row.operation_id, RevisionKind(row.kind), row.actor, row.before,
                    row.after, row.draft_id, row.created_at)  # fmt: skip


def cancel_draft(row: OperationDraftRow) -> None:
    """The card is closed unwritten; the change is flushed with the transaction."""
    row.status = DraftStatus.CANCELLED


def keep_draft(row: OperationDraftRow, payload: dict[str, Any], *, written: bool) -> None:
    """The card's operations as they are now; ``written`` once every one of them is."""
    row.payload = payload  # a new object: the JSON column sees the change
    if written:
        row.status = DraftStatus.WRITTEN


async def open_cards(
    session: Session, user_id: str, chat_id: int, since: datetime
) -> list[tuple[int, dict[str, Any]]]:
    """The user's cards in this chat since ``since`` still waiting for ✅, newest
    first: (draft id, payload)."""
    result = await session.execute(
        select(OperationDraftRow.id, OperationDraftRow.payload)
        .where(
            OperationDraftRow.user_id == user_id,
            OperationDraftRow.chat_id == chat_id,
            OperationDraftRow.status == DraftStatus.DRAFT,
            OperationDraftRow.created_at >= since,
        )
        .order_by(OperationDraftRow.id.desc())
        .limit(5)
    )
    return [(draft_id, payload) for draft_id, payload in result.all()]


async def last_entries(session: Session, farm_id: str, author: str, limit: int = 5) -> list[Entry]:
    """What ``author`` wrote to the farm's journal last, newest first."""
    result = await session.execute(
        select(OperationRow)
        .where(OperationRow.farm_id == farm_id, OperationRow.author == author)
        .order_by(OperationRow.created_at.desc(), OperationRow.id.desc())
        .limit(limit)
    )
    return [_entry(row) for row in result.scalars()]


async def farm_entries(
    session: Session, farm_id: str, limit: int = 10, *, include_deleted: bool = False
) -> list[Entry]:
    """The farm's journal as last written, by anyone, newest first (``include_deleted``:
    the deleted entries too, for an operator to put back)."""
    result = await session.execute(
        select(OperationRow)
        .where(OperationRow.farm_id == farm_id)
        .order_by(OperationRow.created_at.desc(), OperationRow.id.desc())
        .limit(limit)
        .execution_options(include_deleted=include_deleted)
    )
    return [_entry(row) for row in result.scalars()]


async def planned_entries(session: Session, farm_id: str, since: date, until: date) -> list[Entry]:
    """The farm's planned work dated ``since``..``until``, earliest first."""
    result = await session.execute(
        select(OperationRow)
        .where(
            OperationRow.farm_id == farm_id,
            OperationRow.status == OperationStatus.PLANNED,
            OperationRow.op_date.between(since, until),
        )
        .order_by(OperationRow.op_date, OperationRow.id)
    )
    return [_entry(row) for row in result.scalars()]


async def entry(
    session: Session, operation_id: int, *, lock: bool = False, include_deleted: bool = False
) -> Entry | None:
    query = select(OperationRow).where(OperationRow.id == operation_id)
    if lock:
        query = query.with_for_update()
    query = query.execution_options(include_deleted=include_deleted, populate_existing=True)
    row = (await session.execute(query)).scalar_one_or_none()
    return None if row is None else _entry(row)


async def entry_by_source(session: Session, source_key: str) -> Entry | None:
    result = await session.execute(
        select(OperationRow)
        .where(OperationRow.source_key == source_key)
        .execution_options(include_deleted=True)
    )
    row = result.scalar_one_or_none()
    return None if row is None else _entry(row)


async def change_entry(session: Session, operation_id: int, values: Mapping[str, Any]) -> None:
    """Set the entry's values (``ENTRY_COLUMNS`` only; ``op_date`` a date or ISO text)."""
    changes = {k: v for k, v in values.items() if k in ENTRY_COLUMNS}
    if isinstance(changes.get("op_date"), str):
        changes["op_date"] = date.fromisoformat(changes["op_date"])
    if changes:
        await session.execute(
            update(OperationRow)
            .where(OperationRow.id == operation_id)
            .values(**changes)
            .execution_options(synchronize_session=False)
        )


async def set_deleted(session: Session, operation_id: int, when: datetime | None) -> None:
    """Out of the journal (``when``) or back in it (None)."""
    await session.execute(
        update(OperationRow)
        .where(OperationRow.id == operation_id)
        .values(deleted_at=when)
        .execution_options(synchronize_session=False)
    )


async def add_revision(
    session: Session,
    *,
    farm_id: str,
    operation_id: int,
    kind: RevisionKind,
    actor: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    source_key: str,
    draft_id: int | None = None,
    source: str | None = None,
    created_at: datetime | None = None,
) -> bool:
    """Keep one change; False (and nothing kept) when ``source_key`` has one already:
    the change was applied before, by this same message or press."""
    values: dict[str, Any] = {
        "farm_id": farm_id,
        "operation_id": operation_id,
        "kind": kind,
        "actor": actor,
        "before": None if before is None else snapshot(before),
        "after": None if after is None else snapshot(after),
        "draft_id": draft_id,
        "source": source,
        "source_key": source_key[:96],
    }
    if created_at is not None:
        values["created_at"] = created_at
    return await insert_ignore(session, OperationRevisionRow, values)


async def revisions_of(session: Session, operation_id: int) -> list[Revision]:
    result = await session.execute(
        select(OperationRevisionRow)
        .where(OperationRevisionRow.operation_id == operation_id)
        .order_by(OperationRevisionRow.id)
    )
    return [_revision(row) for row in result.scalars()]


async def revisions_of_draft(session: Session, draft_id: int) -> list[Revision]:
    """What the press on card ``draft_id`` changed (an undo takes it back)."""
    result = await session.execute(
        select(OperationRevisionRow)
        .where(OperationRevisionRow.draft_id == draft_id)
        .order_by(OperationRevisionRow.id)
    )
    return [_revision(row) for row in result.scalars()]


async def revisions_between(
    session: Session, farm_id: str, since: datetime, until: datetime
) -> Sequence[Revision]:
    """The farm's changes in a period, oldest first (the report's sheet of changes)."""
    result = await session.execute(
        select(OperationRevisionRow)
        .where(
            OperationRevisionRow.farm_id == farm_id,
            OperationRevisionRow.created_at >= since,
            OperationRevisionRow.created_at < until,
        )
        .order_by(OperationRevisionRow.created_at, OperationRevisionRow.id)
    )
    return [_revision(row) for row in result.scalars()]


async def actor_names(session: Session, user_ids: Iterable[str]) -> dict[str, str]:
    """Who made the changes, by the names their profiles hold (the report's sheet)."""
    ids = sorted(set(user_ids))
    if not ids:
        return {}
    result = await session.execute(
        select(UserProfileRow.user_id, UserProfileRow.name).where(UserProfileRow.user_id.in_(ids))
    )
    return {user_id: name for user_id, name in result.all() if name}


@dataclass(frozen=True, slots=True)
class Overdue:
    """A planned entry whose day passed, with whom to ask about it."""

    entry: Entry
    user_id: str
    language: str
    timezone: str | None


async def overdue_plans(
    session: Session, since: date, before: date, limit: int = 500
) -> list[Overdue]:
    """Planned entries dated ``since``..before ``before`` never offered as «виконано?»,
    with their farm's farmer (the caller checks each farm's own today)."""
    result = await session.execute(
        select(OperationRow, FarmProfileRow.user_id, UserProfileRow.preferred_language,
               FarmProfileRow.timezone)
        .join(FarmProfileRow, FarmProfileRow.farm_id == OperationRow.farm_id)
        .join(UserProfileRow, UserProfileRow.user_id == FarmProfileRow.user_id)
        .where(
            OperationRow.status == OperationStatus.PLANNED,
            OperationRow.op_date >= since,
            OperationRow.op_date < before,
            OperationRow.reminded_at.is_(None),
        )
        .order_by(OperationRow.farm_id, OperationRow.op_date, OperationRow.id)
        .limit(limit)
    )  # fmt: skip
    return [Overdue(_entry(row), user, language, tz) for row, user, language, tz in result.all()]


async def mark_reminded(session: Session, operation_ids: Sequence[int], when: datetime) -> None:
    if operation_ids:
        await session.execute(
            update(OperationRow)
            .where(OperationRow.id.in_(list(operation_ids)))
            .values(reminded_at=when)
            .execution_options(synchronize_session=False)
        )
