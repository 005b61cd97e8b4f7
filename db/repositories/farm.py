"""SQL access to a farm's fields, crops, dictionary, pending terms and journal."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    CropRow,
    DictionaryTermRow,
    FarmProfileRow,
    FieldRow,
    OperationDraftRow,
    OperationRow,
    PendingTermRow,
    UserProfileRow,
)
from db.repositories.profiles import insert_ignore
from db.states import DraftStatus, PendingTermStatus


async def farm_of(session: AsyncSession, user_id: str) -> FarmProfileRow | None:
    result = await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == user_id))
    return result.scalar_one_or_none()


async def add_field(session: AsyncSession, farm_id: str, field_id: str, name: str) -> None:
    await insert_ignore(session, FieldRow, {"farm_id": farm_id, "field_id": field_id, "name": name})


async def add_crop(session: AsyncSession, farm_id: str, crop_id: str, name: str) -> None:
    await insert_ignore(session, CropRow, {"farm_id": farm_id, "crop_id": crop_id, "name": name})


async def fields(session: AsyncSession, farm_id: str) -> Sequence[FieldRow]:
    result = await session.execute(select(FieldRow).where(FieldRow.farm_id == farm_id))
    return result.scalars().all()


async def crops(session: AsyncSession, farm_id: str) -> Sequence[CropRow]:
    result = await session.execute(select(CropRow).where(CropRow.farm_id == farm_id))
    return result.scalars().all()


async def dictionary_terms(session: AsyncSession, farm_id: str) -> Sequence[DictionaryTermRow]:
    """The farm's own terms and the shared ones (farm_id NULL)."""
    result = await session.execute(
        select(DictionaryTermRow).where(
            (DictionaryTermRow.farm_id == farm_id) | DictionaryTermRow.farm_id.is_(None)
        )
    )
    return result.scalars().all()


async def note_pending_term(
    session: AsyncSession, farm_id: str, kind: str, term: str, message: str
) -> PendingTermRow:
    """Record an unknown name, or count one more sighting of it."""
    await insert_ignore(
        session,
        PendingTermRow,
        {"farm_id": farm_id, "kind": kind, "term": term, "first_message": message, "times_seen": 0},
    )
    await session.execute(
        update(PendingTermRow)
        .where(
            PendingTermRow.farm_id == farm_id,
            PendingTermRow.kind == kind,
            PendingTermRow.term == term,
        )
        .values(times_seen=PendingTermRow.times_seen + 1)
    )
    result = await session.execute(
        select(PendingTermRow).where(
            PendingTermRow.farm_id == farm_id,
            PendingTermRow.kind == kind,
            PendingTermRow.term == term,
        )
    )
    return result.scalar_one()


async def owners_of(
    session: AsyncSession, farm_ids: Sequence[str]
) -> dict[str, tuple[FarmProfileRow, UserProfileRow | None]]:
    """Each farm with the profile of the farmer it belongs to (None if deleted)."""
    if not farm_ids:
        return {}
    rows = await session.execute(
        select(FarmProfileRow, UserProfileRow)
        .outerjoin(UserProfileRow, UserProfileRow.user_id == FarmProfileRow.user_id)
        .where(FarmProfileRow.farm_id.in_(list(farm_ids)))
    )
    return {farm.farm_id: (farm, user) for farm, user in rows}


async def pending_terms(
    session: AsyncSession,
    *,
    status: PendingTermStatus = PendingTermStatus.PENDING,
    farm_id: str | None = None,
    limit: int | None = None,
) -> Sequence[PendingTermRow]:
    """Terms in ``status``, oldest first; the first ``limit`` of them when given."""
    query = select(PendingTermRow).where(PendingTermRow.status == status)
    if farm_id is not None:
        query = query.where(PendingTermRow.farm_id == farm_id)
    query = query.order_by(PendingTermRow.id)
    if limit is not None:
        query = query.limit(limit)
    result = await session.execute(query)
    return result.scalars().all()


async def pending_term(
    session: AsyncSession, term_id: int, *, lock: bool = False
) -> PendingTermRow | None:
    query = select(PendingTermRow).where(PendingTermRow.id == term_id)
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    return (await session.execute(query)).scalar_one_or_none()


async def field_terms(session: AsyncSession, farm_id: str) -> dict[int, str]:
    """The farm's unknown field names by term id, as the farmer wrote them: what an
    operation waiting on one (``pending_term_id``, no ``field_id`` yet) is shown with."""
    result = await session.execute(
        select(PendingTermRow.id, PendingTermRow.term).where(
            PendingTermRow.farm_id == farm_id, PendingTermRow.kind == "field"
        )
    )
    return {int(term_id): str(term) for term_id, term in result.all()}


async def pending_counts(session: AsyncSession) -> dict[str, int]:
    result = await session.execute(
        select(PendingTermRow.status, func.count()).group_by(PendingTermRow.status)
    )
    return {status: int(count) for status, count in result.all()}


async def pending_count_of(session: AsyncSession, farm_id: str) -> int:
    return int(
        await session.scalar(
            select(func.count())
            .select_from(PendingTermRow)
            .where(
                PendingTermRow.farm_id == farm_id,
                PendingTermRow.status == PendingTermStatus.PENDING,
            )
        )
        or 0
    )


async def add_draft(
    session: AsyncSession,
    *,
    user_id: str,
    farm_id: str,
    chat_id: int,
    source_message_id: int | None,
    payload: dict[str, Any],
    created_at: datetime | None = None,
) -> tuple[OperationDraftRow, bool]:
    """The message's card and True when it is new; the card the message already has
    and False when another transaction wrote one (a redelivered update, a concurrent
    copy of it): one card per (chat, message), by the unique index, never an error."""
    values: dict[str, Any] = {
        "user_id": user_id,
        "farm_id": farm_id,
        "chat_id": chat_id,
        "source_message_id": source_message_id,
        "payload": payload,
        "status": DraftStatus.DRAFT,
    }
    if created_at is not None:
        values["created_at"] = created_at
    if source_message_id is None:
        draft = OperationDraftRow(**values)
        session.add(draft)
        await session.flush()
        return draft, True
    # ON CONFLICT DO NOTHING: on PostgreSQL a concurrent insert of the same message
    # waits for the other transaction and then inserts nothing; SQLite's writers queue.
    inserted = await insert_ignore(session, OperationDraftRow, values)
    found = await message_draft(session, chat_id, source_message_id)
    if found is None:  # pragma: no cover - the row was inserted or is committed
        raise LookupError(f"no card for message {chat_id}:{source_message_id}")
    return found, inserted


async def message_draft(
    session: AsyncSession, chat_id: int, source_message_id: int
) -> OperationDraftRow | None:
    """The card a message has (at most one: ``ux_operation_drafts_message``)."""
    result = await session.execute(
        select(OperationDraftRow).where(
            OperationDraftRow.chat_id == chat_id,
            OperationDraftRow.source_message_id == source_message_id,
        )
    )
    return result.scalar_one_or_none()


async def draft(
    session: AsyncSession, draft_id: int, *, lock: bool = False
) -> OperationDraftRow | None:
    query = select(OperationDraftRow).where(OperationDraftRow.id == draft_id)
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    return (await session.execute(query)).scalar_one_or_none()


async def insert_operation(session: AsyncSession, values: dict[str, Any]) -> bool:
    """Insert unless this source message already wrote one; True when inserted.

    The unique ``source_key`` is the guard: a redelivered update or a second tap on ✅
    hits it and inserts nothing.
    """
    return await insert_ignore(session, OperationRow, values)


async def operations_waiting_on(session: AsyncSession, term_id: int) -> Sequence[OperationRow]:
    result = await session.execute(
        select(OperationRow).where(OperationRow.pending_term_id == term_id)
    )
    return result.scalars().all()


async def operations_between(
    session: AsyncSession, farm_id: str, start: date, end: date
) -> Sequence[OperationRow]:
    result = await session.execute(
        select(OperationRow)
        .where(OperationRow.farm_id == farm_id, OperationRow.op_date.between(start, end))
        .order_by(OperationRow.op_date, OperationRow.id)
    )
    return result.scalars().all()


async def journal_page(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
    limit: int,
) -> tuple[Sequence[OperationRow], int]:
    """The newest ``limit`` journal entries of ``start``..``end`` (one field's, when
    given) and how many there are in all: "what is in the journal this week"."""
    where = [OperationRow.farm_id == farm_id, OperationRow.op_date.between(start, end)]
    if field_id is not None:
        where.append(OperationRow.field_id == field_id)
    rows = await session.execute(
        select(OperationRow)
        .where(*where)
        .order_by(OperationRow.op_date.desc(), OperationRow.id.desc())
        .limit(limit)
    )
    total = await session.scalar(select(func.count()).select_from(OperationRow).where(*where))
    return rows.scalars().all(), int(total or 0)


async def recent_operations(
    session: AsyncSession, author: str, since: datetime
) -> Sequence[OperationRow]:
    """The operations ``author`` wrote since ``since`` (the duplicate check)."""
    result = await session.execute(
        select(OperationRow).where(OperationRow.author == author, OperationRow.created_at >= since)
    )
    return result.scalars().all()


async def recent_drafts(
    session: AsyncSession, user_id: str, since: datetime
) -> Sequence[OperationDraftRow]:
    """The user's cards since ``since`` that are not cancelled."""
    result = await session.execute(
        select(OperationDraftRow).where(
            OperationDraftRow.user_id == user_id,
            OperationDraftRow.created_at >= since,
            OperationDraftRow.status != DraftStatus.CANCELLED,
        )
    )
    return result.scalars().all()


async def set_field_area(
    session: AsyncSession, farm_id: str, field_id: str, area_ha: float
) -> bool:
    """True when the farm has that field (and its area is now ``area_ha``)."""
    result = await session.execute(
        update(FieldRow)
        .where(FieldRow.farm_id == farm_id, FieldRow.field_id == field_id)
        .values(area_ha=area_ha)
    )
    return bool(getattr(result, "rowcount", 0))


async def set_timezone(session: AsyncSession, farm_id: str, timezone: str) -> None:
    await session.execute(
        update(FarmProfileRow).where(FarmProfileRow.farm_id == farm_id).values(timezone=timezone)
    )


async def set_region(session: AsyncSession, farm_id: str, region_id: str) -> None:
    """The farm's oblast, an id of ``rules/knowledge/zones.toml``."""
    await session.execute(
        update(FarmProfileRow).where(FarmProfileRow.farm_id == farm_id).values(region=region_id)
    )


async def region_of_user(session: AsyncSession, user_id: str) -> str | None:
    """The region of the farm ``user_id`` owns (None without a farm or a region)."""
    return await session.scalar(
        select(FarmProfileRow.region).where(FarmProfileRow.user_id == user_id)
    )


async def region_of_farm(session: AsyncSession, farm_id: str) -> str | None:
    return await session.scalar(
        select(FarmProfileRow.region).where(FarmProfileRow.farm_id == farm_id)
    )


async def crop_ids(session: AsyncSession, farm_id: str) -> tuple[str, ...]:
    """The crop ids of the farm's journal dictionary."""
    result = await session.execute(select(CropRow.crop_id).where(CropRow.farm_id == farm_id))
    return tuple(result.scalars())


async def field_ids_and_names(session: AsyncSession, farm_id: str) -> list[tuple[str, str]]:
    """The farm's fields as (field_id, name), in no particular order."""
    result = await session.execute(
        select(FieldRow.field_id, FieldRow.name).where(FieldRow.farm_id == farm_id)
    )
    return [(field_id, name) for field_id, name in result]


async def farm_row(session: AsyncSession, farm_id: str) -> FarmProfileRow | None:
    """The farm by its key (the session's copy when it already holds one)."""
    return await session.get(FarmProfileRow, farm_id)


async def refresh_pending_count(session: AsyncSession, farm_id: str) -> None:
    """Store on the farm how many of its names wait for review now."""
    await session.flush()
    farm = await session.get(FarmProfileRow, farm_id)
    if farm is not None:
        farm.dict_pending_count = await pending_count_of(session, farm_id)


async def add_synonym(
    session: AsyncSession, farm_id: str, kind: str, canonical_id: str, display: str, term: str
) -> None:
    """Make sure the farm's dictionary has ``canonical_id`` (shown as ``display``) and
    that ``term`` is one of its synonyms."""
    await insert_ignore(
        session,
        DictionaryTermRow,
        {
            "farm_id": farm_id,
            "kind": kind,
            "canonical_id": canonical_id,
            "display": display,
            "synonyms": [],
        },
    )
    row = (
        await session.execute(
            select(DictionaryTermRow).where(
                DictionaryTermRow.farm_id == farm_id,
                DictionaryTermRow.kind == kind,
                DictionaryTermRow.canonical_id == canonical_id,
            )
        )
    ).scalar_one()
    if term not in row.synonyms:
        row.synonyms = [*row.synonyms, term]
