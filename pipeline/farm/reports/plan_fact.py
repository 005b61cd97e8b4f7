"""Plan vs fact: planned and done operations per field and type."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from sqlalchemy.ext.asyncio import AsyncSession

from db.repositories import reporting
from db.repositories.reporting import PlanFactCount


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
    counts: Iterable[PlanFactCount], field_names: dict[str, str]
) -> list[PlanFactRow]:
    rows = [
        PlanFactRow(
            field_id=count.field_id,
            field_name=field_names.get(count.field_id) if count.field_id else None,
            op_type=count.op_type,
            planned=count.planned,
            done=count.done,
        )
        for count in counts
    ]
    # Fields by name as the farmer knows them; operations without a field last.
    rows.sort(key=lambda r: (r.field_id is None, r.field_name or r.field_id or "", r.op_type))
    return rows


async def field_names(session: AsyncSession, farm_id: str) -> dict[str, str]:
    return {info.field_id: info.name for info in await reporting.fields(session, farm_id)}


async def plan_vs_fact(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
) -> list[PlanFactRow]:
    """Planned vs done operations per field and type, dated ``start``..``end``."""
    names = await field_names(session, farm_id)
    counts = await reporting.plan_fact_counts(session, farm_id, start, end, field_id=field_id)
    return plan_fact_rows(counts, names)
