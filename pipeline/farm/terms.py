"""Operators' review of names Stepan did not know (seed: /pending, /approve, /reject,
/apply_dict, /pending_stats). An unknown name is never invented: it waits here.

Each method is one operator use case and opens its own transaction(s)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from db.models import FarmProfileRow, PendingTermRow
from db.repositories import farm as repo
from db.states import PendingTermStatus
from db.uow import Database, Session
from pipeline.farm.slugs import make_id
from pipeline.farm.words.name_match import NameRules

logger = logging.getLogger(__name__)

KIND_PREFIX = {"field": "field", "crop": "crop", "operation": "op", "product": "product"}


class FarmWriter(Protocol):
    async def update_farm(self, user_id: str, **changes: Any) -> Any: ...


@dataclass(frozen=True, slots=True)
class ApplyResult:
    terms: int
    operations: int


class TermError(ValueError):
    """``key`` is a catalog key under ``terms.``."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True, slots=True)
class FarmTerms:
    """One farm's pending terms and whose farm it is."""

    farm_id: str
    farm_name: str | None
    #: The farmer's id ("tg:1001"); None if the farm's profile is gone.
    user_id: str | None
    user_name: str | None
    terms: tuple[PendingTermRow, ...]


class TermReview:
    def __init__(self, db: Database, farms: FarmWriter, names: NameRules) -> None:
        self._db = db
        self._farms = farms
        self._names = names

    def shown(self, row: PendingTermRow) -> str:
        """A term as an operator reads it: a field as it is called («Північне»), as
        the farmer's card showed it, not as the message inflected it («північному»)."""
        return shown_term(self._names, row.kind, row.term)

    async def pending(self, limit: int = 20) -> list[PendingTermRow]:
        async with self._db.read() as session:
            return list(await repo.pending_terms(session, limit=limit))

    async def pending_by_farm(self, limit: int = 20) -> list[FarmTerms]:
        """The pending terms grouped by farm, each with whose farm it is (issue 16
        point 5): an operator sees the farm's and the farmer's names, not a mix."""
        async with self._db.read() as session:
            rows = list(await repo.pending_terms(session, limit=limit))
            owners = await repo.owners_of(session, sorted({row.farm_id for row in rows}))
        groups: dict[str, list[PendingTermRow]] = {}
        for row in rows:
            groups.setdefault(row.farm_id, []).append(row)
        out: list[FarmTerms] = []
        for farm_id, terms in groups.items():
            farm, user = owners.get(farm_id, (None, None))
            out.append(
                FarmTerms(
                    farm_id=farm_id,
                    farm_name=farm.farm_name if farm is not None else None,
                    user_id=farm.user_id if farm is not None else None,
                    user_name=user.name if user is not None else None,
                    terms=tuple(terms),
                )
            )
        return out

    async def approve(self, term_id: int, canonical: str | None = None) -> PendingTermRow:
        """TermError (nothing changed) for an unknown, decided or badly named term."""
        async with self._db.write() as session:
            row = await _open(session, term_id)
            # A new field's id from its name («Північне»: field:pivnichne).
            canonical_id = canonical or make_id(KIND_PREFIX[row.kind], self.shown(row))
            if not canonical_id or ":" not in canonical_id or len(canonical_id) > 64:
                raise TermError("terms.bad_canonical")
            row.status, row.canonical_id = PendingTermStatus.APPROVED, canonical_id
            await repo.refresh_pending_count(session, row.farm_id)
        return row

    async def reject(self, term_id: int) -> PendingTermRow:
        async with self._db.write() as session:
            row = await _open(session, term_id)
            row.status = PendingTermStatus.REJECTED
            await repo.refresh_pending_count(session, row.farm_id)
        return row

    async def apply(self) -> ApplyResult:
        """Make approved terms part of the farms' dictionaries and complete the
        operations that waited for them; then the farm profiles follow, through the
        memory layer, so the cache and the memory-service follow too."""
        async with self._db.write() as session:
            approved, operations, user_changes = await _apply(session, self._names)
        for user_id, changes in user_changes.items():
            await self._farms.update_farm(user_id, **changes)
        return ApplyResult(len(approved), operations)

    async def stats(self) -> dict[str, int]:
        async with self._db.read() as session:
            return await repo.pending_counts(session)


def shown_term(names: NameRules, kind: str, term: str) -> str:
    return names.field_name(term) if kind == "field" else term


async def _apply(
    session: Session, names: NameRules
) -> tuple[list[PendingTermRow], int, dict[str, dict[str, Any]]]:
    approved = list(await repo.pending_terms(session, status=PendingTermStatus.APPROVED))
    operations = 0
    touched: dict[str, FarmProfileRow] = {}
    for row in approved:
        canonical = row.canonical_id or ""
        # The new field is called as the card called it; the words the farmer wrote
        # stay a synonym, so the next message with them finds it.
        display = shown_term(names, row.kind, row.term)
        await repo.add_synonym(session, row.farm_id, row.kind, canonical, display, row.term)
        if row.kind == "field":
            await repo.add_field(session, row.farm_id, canonical, display)
        elif row.kind == "crop":
            await repo.add_crop(session, row.farm_id, canonical, row.term)
        for operation in await repo.operations_waiting_on(session, row.id):
            if row.kind == "field" and operation.field_id is None:
                operation.field_id = canonical
            if row.kind == "crop" and operation.crop_id is None:
                operation.crop_id = canonical
            operation.pending_term_id = None
            operations += 1
        row.status = PendingTermStatus.APPLIED
        farm = await repo.farm_row(session, row.farm_id)
        if farm is not None:
            touched[farm.farm_id] = farm
    user_changes = {farm.user_id: _id_lists(farm, approved) for farm in touched.values()}
    return approved, operations, user_changes


async def _open(session: Session, term_id: int) -> PendingTermRow:
    row = await repo.pending_term(session, term_id, lock=True)
    if row is None:
        raise TermError("terms.not_found")
    if row.status != PendingTermStatus.PENDING:
        raise TermError("terms.not_pending")
    return row


def _id_lists(farm: FarmProfileRow, approved: list[PendingTermRow]) -> dict[str, Any]:
    fields = list(farm.field_ids)
    crops = list(farm.crop_ids)
    for row in approved:
        if row.farm_id != farm.farm_id or not row.canonical_id:
            continue
        target = fields if row.kind == "field" else crops if row.kind == "crop" else None
        if target is not None and row.canonical_id not in target:
            target.append(row.canonical_id)
    return {"field_ids": fields, "crop_ids": crops, "dict_pending_count": 0}
