"""What the weather warnings read of the farms' journals (pipeline/weather/warnings.py):
which farms sowed lately, which sprayings are planned in the next days. Never commits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FieldRow, OperationRow
from db.states import OperationStatus

#: Farms per IN list (well under the bound-parameter limits).
CHUNK = 500
SOWING, SPRAYING = "sowing", "spraying"


@dataclass(frozen=True, slots=True)
class PlannedSpraying:
    farm_id: str
    day: date
    #: The field's name as the farm calls it; None for an entry without a field.
    field: str | None


async def sown_since(session: AsyncSession, farm_ids: Sequence[str], since: date) -> set[str]:
    """The farms among ``farm_ids`` with a sowing recorded as done on or after ``since``."""
    ops = OperationRow
    found: set[str] = set()
    for start in range(0, len(farm_ids), CHUNK):
        rows = await session.execute(
            select(ops.farm_id)
            .where(
                ops.status == OperationStatus.DONE,
                ops.op_date >= since,
                ops.op_type == SOWING,
                ops.deleted_at.is_(None),
                ops.farm_id.in_(list(farm_ids[start : start + CHUNK])),
            )
            .distinct()
        )
        found.update(rows.scalars())
    return found


async def planned_sprayings(
    session: AsyncSession, farm_ids: Sequence[str], start: date, end: date
) -> list[PlannedSpraying]:
    """Sprayings still planned for a day in [start, end] on ``farm_ids``, by day."""
    ops, fields = OperationRow, FieldRow
    found: list[PlannedSpraying] = []
    for first in range(0, len(farm_ids), CHUNK):
        rows = await session.execute(
            select(ops.farm_id, ops.op_date, fields.name)
            .outerjoin(fields, and_(fields.farm_id == ops.farm_id, fields.field_id == ops.field_id))
            .where(
                ops.status == OperationStatus.PLANNED,
                ops.op_date >= start,
                ops.op_date <= end,
                ops.op_type == SPRAYING,
                ops.deleted_at.is_(None),
                ops.farm_id.in_(list(farm_ids[first : first + CHUNK])),
            )
            .order_by(ops.op_date, ops.id)
        )
        found.extend(PlannedSpraying(farm, day, name) for farm, day, name in rows.all())
    return found
