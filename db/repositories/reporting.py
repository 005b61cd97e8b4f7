"""Read-only queries behind the farm's reports, charts and season summary.

Like every repository these take a session and never end its transaction. On SQLite
a transaction starts with BEGIN IMMEDIATE (db/engine.py), so even a read holds the
write lock until it ends: large results (a season's journal, months of sensor
readings) are read in keyset pages (``operations_page``, ``readings_page``), and
``pipeline.farm.paging`` reads each page in a short transaction of its own, so
building a report never stalls the journal writers for more than one page.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import ColumnElement, and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import CropRow, FarmProfileRow, FieldRow, OperationRow, SensorReadingRow

logger = logging.getLogger(__name__)

#: Rows per keyset page: big enough that round trips do not dominate, small enough
#: that one page's transaction is a few milliseconds.
PAGE_SIZE = 5_000

OperationCursor = tuple[date, int]
ReadingCursor = tuple[datetime, int]


@dataclass(frozen=True, slots=True)
class FieldInfo:
    field_id: str
    name: str
    area_ha: float | None


@dataclass(frozen=True, slots=True)
class OperationRecord:
    id: int
    op_date: date
    field_id: str | None
    crop_id: str | None
    op_type: str
    quantity: float | None
    unit: str | None
    product: str | None
    status: str


@dataclass(frozen=True, slots=True)
class PlanFactCount:
    """Planned and done operations of one type on one field within a period."""

    field_id: str | None
    op_type: str
    planned: int
    done: int


@dataclass(frozen=True, slots=True)
class QuantityTotal:
    """The summed quantity of operations sharing type, field, product and unit."""

    op_type: str
    field_id: str | None
    product: str | None
    unit: str | None
    total: float
    operations: int


@dataclass(frozen=True, slots=True)
class ReadingRecord:
    id: int
    measured_at: datetime  # always timezone-aware UTC
    field_id: str | None
    sensor_id: str
    sensor_type: str
    value: float
    unit: str


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


# --- Dictionaries of the farm -----------------------------------------------------


async def fields(session: AsyncSession, farm_id: str) -> list[FieldInfo]:
    """The farm's fields with their areas, by name."""
    result = await session.execute(
        select(FieldRow.field_id, FieldRow.name, FieldRow.area_ha)
        .where(FieldRow.farm_id == farm_id)
        .order_by(FieldRow.name, FieldRow.field_id)
    )
    return [FieldInfo(row.field_id, row.name, row.area_ha) for row in result]


async def field_areas(session: AsyncSession, farm_id: str) -> dict[str, float]:
    """Field id -> area in hectares, only for fields whose area is known and positive."""
    return {
        info.field_id: info.area_ha
        for info in await fields(session, farm_id)
        if info.area_ha is not None and info.area_ha > 0
    }


async def crop_names(session: AsyncSession, farm_id: str) -> dict[str, str]:
    result = await session.execute(
        select(CropRow.crop_id, CropRow.name).where(CropRow.farm_id == farm_id)
    )
    return {row.crop_id: row.name for row in result}


async def alert_thresholds(session: AsyncSession, farm_id: str) -> dict[str, float]:
    """The farm's thresholds (``soil_moisture_min``, ``temperature_max``...); numbers only."""
    result = await session.execute(
        select(FarmProfileRow.alert_thresholds).where(FarmProfileRow.farm_id == farm_id)
    )
    raw = result.scalar_one_or_none() or {}
    # The JSON column is written by operators' commands too: keep what is a number.
    return {
        key: float(value)
        for key, value in raw.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


# --- Operations journal -----------------------------------------------------------


def _operations_in_period(
    farm_id: str, start: date, end: date, field_id: str | None
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [
        OperationRow.farm_id == farm_id,
        OperationRow.op_date >= start,
        OperationRow.op_date <= end,
    ]
    if field_id is not None:
        conditions.append(OperationRow.field_id == field_id)
    return conditions


async def operations_page(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
    after: OperationCursor | None = None,
    limit: int = PAGE_SIZE,
) -> list[OperationRecord]:
    """Operations dated ``start``..``end`` (inclusive), by date then id, after ``after``."""
    query = select(
        OperationRow.id,
        OperationRow.op_date,
        OperationRow.field_id,
        OperationRow.crop_id,
        OperationRow.op_type,
        OperationRow.quantity,
        OperationRow.unit,
        OperationRow.product,
        OperationRow.status,
    ).where(*_operations_in_period(farm_id, start, end, field_id))
    if after is not None:
        # Keyset paging: (op_date, id) follows ix_operations_farm_date, so each page
        # is an index range scan instead of an ever-growing OFFSET.
        last_date, last_id = after
        query = query.where(
            or_(
                OperationRow.op_date > last_date,
                and_(OperationRow.op_date == last_date, OperationRow.id > last_id),
            )
        )
    # Core execution on the session's connection: plain column tuples skip the ORM
    # loading layer, which is a good part of the cost of a 5,000-row page.
    connection = await session.connection()
    result = await connection.execute(
        query.order_by(OperationRow.op_date, OperationRow.id).limit(limit)
    )
    return [OperationRecord(*row) for row in result]


async def plan_fact_counts(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
) -> list[PlanFactCount]:
    """Planned and done counts per field and operation type, aggregated in SQL."""
    planned = func.sum(case((OperationRow.status == "planned", 1), else_=0))
    done = func.sum(case((OperationRow.status == "done", 1), else_=0))
    result = await session.execute(
        select(OperationRow.field_id, OperationRow.op_type, planned, done)
        .where(*_operations_in_period(farm_id, start, end, field_id))
        .group_by(OperationRow.field_id, OperationRow.op_type)
        .order_by(OperationRow.field_id, OperationRow.op_type)
    )
    counts = [PlanFactCount(row[0], row[1], int(row[2] or 0), int(row[3] or 0)) for row in result]
    return counts


async def quantity_totals(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    status: str = "done",
) -> list[QuantityTotal]:
    """Summed quantities per operation type, field, product and unit (SQL aggregate).

    Operations without a quantity are left out: there is nothing to add up.
    """
    result = await session.execute(
        select(
            OperationRow.op_type,
            OperationRow.field_id,
            OperationRow.product,
            OperationRow.unit,
            func.sum(OperationRow.quantity),
            func.count(),
        )
        .where(
            *_operations_in_period(farm_id, start, end, None),
            OperationRow.status == status,
            OperationRow.quantity.is_not(None),
        )
        .group_by(
            OperationRow.op_type, OperationRow.field_id, OperationRow.product, OperationRow.unit
        )
    )
    totals = [
        QuantityTotal(row[0], row[1], row[2], row[3], float(row[4] or 0.0), int(row[5]))
        for row in result
    ]
    return totals


# --- Sensor readings ---------------------------------------------------------------


def _utc_bound(moment: datetime) -> datetime:
    # Readings are stored in UTC; SQLite compares the stored text, so a bound in
    # another offset would silently shift the window.
    return as_utc(moment)


async def sensor_types(
    session: AsyncSession, farm_id: str, *, since: datetime, until: datetime | None = None
) -> list[str]:
    """The sensor types that have readings in ``since`` <= time < ``until``."""
    query = select(SensorReadingRow.sensor_type).where(
        SensorReadingRow.farm_id == farm_id, SensorReadingRow.measured_at >= _utc_bound(since)
    )
    if until is not None:
        query = query.where(SensorReadingRow.measured_at < _utc_bound(until))
    result = await session.execute(query.distinct().order_by(SensorReadingRow.sensor_type))
    types = list(result.scalars())
    return types


async def readings_page(
    session: AsyncSession,
    farm_id: str,
    sensor_type: str,
    *,
    since: datetime,
    until: datetime | None = None,
    field_id: str | None = None,
    after: ReadingCursor | None = None,
    limit: int = PAGE_SIZE,
) -> list[ReadingRecord]:
    """Readings of one type in ``since`` <= time < ``until``, by time then id."""
    query = select(
        SensorReadingRow.id,
        SensorReadingRow.measured_at,
        SensorReadingRow.field_id,
        SensorReadingRow.sensor_id,
        SensorReadingRow.sensor_type,
        SensorReadingRow.value,
        SensorReadingRow.unit,
    ).where(
        SensorReadingRow.farm_id == farm_id,
        SensorReadingRow.sensor_type == sensor_type,
        SensorReadingRow.measured_at >= _utc_bound(since),
    )
    if until is not None:
        query = query.where(SensorReadingRow.measured_at < _utc_bound(until))
    if field_id is not None:
        query = query.where(SensorReadingRow.field_id == field_id)
    if after is not None:
        # (measured_at, id) follows ix_sensor_readings_farm_type_time.
        last_time, last_id = after
        last_time = _utc_bound(last_time)
        query = query.where(
            or_(
                SensorReadingRow.measured_at > last_time,
                and_(SensorReadingRow.measured_at == last_time, SensorReadingRow.id > last_id),
            )
        )
    connection = await session.connection()  # Core, as in operations_page
    result = await connection.execute(
        query.order_by(SensorReadingRow.measured_at, SensorReadingRow.id).limit(limit)
    )
    page = [
        ReadingRecord(row[0], as_utc(row[1]), row[2], row[3], row[4], row[5], row[6])
        for row in result
    ]
    return page
