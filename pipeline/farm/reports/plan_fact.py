"""Plan vs fact: planned and done operations per field and type."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from db.repositories import farm as farm_repo
from db.repositories import reporting
from db.repositories.reporting import PlanFactCount
from db.uow import Session
from pipeline.farm.words.name_match import NameRules, field_name


@dataclass(frozen=True, slots=True)
class PlanFactRow:
    """Planned vs done operations of one type on one field.

    A done operation fulfils at most one planned operation of the same field and
    type within the period, so ``matched`` is ``min(planned, done)`` and extra,
    unplanned work never lifts completion above 100 %.
    """

    field_id: str | None
    field_name: str | None
    op_type: str
    planned: int
    done: int
    #: Without a field: the unknown field these operations wait on (its term's id).
    pending_term_id: int | None = None

    @property
    def matched(self) -> int:
        return min(self.planned, self.done)

    @property
    def completion_pct(self) -> float | None:
        """None when nothing was planned: unplanned work has no completion."""
        return completion_pct(self.matched, self.planned)


def completion_pct(matched: int, planned: int) -> float | None:
    return round(100.0 * matched / planned, 1) if planned else None


def plan_fact_rows(
    counts: Iterable[PlanFactCount],
    field_names: dict[str, str],
    waiting: Mapping[int, str] | None = None,
) -> list[PlanFactRow]:
    """One row per field (or unknown field in ``waiting``, by its term id) and type.
    Operations without a field that wait on another kind of name (a crop) join the
    operations without a field."""
    merged: dict[tuple[str | None, int | None, str], list[int]] = {}
    for count in counts:
        term = count.pending_term_id
        if count.field_id is not None or term not in (waiting or {}):
            term = None
        totals = merged.setdefault((count.field_id, term, count.op_type), [0, 0])
        totals[0] += count.planned
        totals[1] += count.done
    rows = [
        PlanFactRow(
            field_id=field_id,
            field_name=field_names.get(field_id) if field_id else None,
            op_type=op_type,
            planned=planned,
            done=done,
            pending_term_id=term,
        )
        for (field_id, term, op_type), (planned, done) in merged.items()
    ]
    # Fields by name as the farmer knows them; the fields waiting for an operator
    # next, by name; operations without a field last.
    rows.sort(
        key=lambda r: (
            r.field_id is None,
            r.pending_term_id is None,
            r.field_name or r.field_id or (waiting or {}).get(r.pending_term_id or 0, ""),
            r.op_type,
        )
    )
    return rows


async def field_names(session: Session, farm_id: str) -> dict[str, str]:
    return {info.field_id: info.name for info in await reporting.fields(session, farm_id)}


async def waiting_fields(session: Session, farm_id: str, rules: NameRules | None) -> dict[int, str]:
    """The farm's unknown fields by term id, each as it is called («північному» ->
    «Північне»): what an operation without a field that waits on one shows."""
    terms = await farm_repo.field_terms(session, farm_id)
    endings = rules.nominative_endings if rules is not None else ()
    return {term_id: field_name(term, endings) for term_id, term in terms.items()}


async def plan_vs_fact(
    session: Session,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
    waiting: Mapping[int, str] | None = None,
) -> list[PlanFactRow]:
    """Planned vs done operations per field and type, dated ``start``..``end``; the
    fields in ``waiting`` (:func:`waiting_fields`) apart from «no field»."""
    names = await field_names(session, farm_id)
    counts = await reporting.plan_fact_counts(session, farm_id, start, end, field_id=field_id)
    return plan_fact_rows(counts, names, waiting)
