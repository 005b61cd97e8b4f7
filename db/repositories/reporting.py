"""Read-only queries behind the farm's reports, charts and season summary.

Like every repository these take a session and never end its transaction. On SQLite
a transaction starts with BEGIN IMMEDIATE (db/engine.py), so even a read holds the
write lock until it ends: large results (a season's journal, months of sensor
readings) are read in keyset pages (``operations_page``, ``readings_page``), and
``pipeline.farm.reports.keyset`` reads each page in a short transaction of its own, so
building a report never stalls the journal writers for more than one page.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import CropRow, FarmProfileRow, FieldRow, OperationRow, SensorReadingRow
from db.states import OperationStatus

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
    rate: float | None = None
    rate_unit: str | None = None
    amount: float | None = None
    amount_unit: str | None = None
    area_ha: float | None = None
    yield_t_ha: float | None = None
    #: The unknown name the operation waits on (a field's, when ``field_id`` is None).
    pending_term_id: int | None = None
    #: The weather at a spraying's time (``operations.weather``).
    weather: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PlanFactCount:
    """Planned and done operations of one type on one field within a period."""

    field_id: str | None
    op_type: str
    planned: int
    done: int
    #: Without a field: the unknown field's term these operations wait on, if any.
    pending_term_id: int | None = None


@dataclass(frozen=True, slots=True)
class AmountGroup:
    """Done operations sharing type, field, crop, product and units, their amounts
    summed apart: given totals, rates (with and without the area treated), areas,
    yields, and the one quantity of rows written before amounts were kept apart."""

    op_type: str
    field_id: str | None
    crop_id: str | None
    product: str | None
    rate_unit: str | None
    amount_unit: str | None
    legacy_unit: str | None
    amount: float = 0.0  # the totals given ("5 т селітри")
    rate: float = 0.0  # every rate without a total (irrigation depths add up per field)
    rate_on_area: float = 0.0  # rate x area treated, where both were given
    rate_area: float = 0.0  # the area treated of those
    rate_alone: float = 0.0  # rates given with neither a total nor an area
    rate_alone_ops: int = 0
    area: float = 0.0  # areas treated
    yield_on_area: float = 0.0  # t/ha x ha, where both were given
    yield_alone: float = 0.0  # yields given without an area
    yield_alone_ops: int = 0
    legacy: float = 0.0  # ``quantity`` of rows without the separate columns
    legacy_ops: int = 0
    operations: int = 0


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


async def farm_timezone(session: AsyncSession, farm_id: str) -> str | None:
    result = await session.execute(
        select(FarmProfileRow.timezone).where(FarmProfileRow.farm_id == farm_id)
    )
    return result.scalar_one_or_none()


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
        # Said here too: operations_page runs on the connection, where the ORM's
        # deleted-entry filter (db/farm_models.py) does not reach.
        OperationRow.deleted_at.is_(None),
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
        OperationRow.rate,
        OperationRow.rate_unit,
        OperationRow.amount,
        OperationRow.amount_unit,
        OperationRow.area_ha,
        OperationRow.yield_t_ha,
        OperationRow.pending_term_id,
        OperationRow.weather,
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
    planned = func.sum(case((OperationRow.status == OperationStatus.PLANNED, 1), else_=0))
    done = func.sum(case((OperationRow.status == OperationStatus.DONE, 1), else_=0))
    # Operations without a field apart by the unknown field they wait on, if any: the
    # farmer named «Північне», not «no field».
    waiting = case((OperationRow.field_id.is_(None), OperationRow.pending_term_id), else_=None)
    result = await session.execute(
        select(OperationRow.field_id, OperationRow.op_type, planned, done, waiting)
        .where(*_operations_in_period(farm_id, start, end, field_id))
        .group_by(OperationRow.field_id, waiting, OperationRow.op_type)
        .order_by(OperationRow.field_id, waiting, OperationRow.op_type)
    )
    return [
        PlanFactCount(row[0], row[1], int(row[2] or 0), int(row[3] or 0), row[4]) for row in result
    ]


def _sum_if(condition: ColumnElement[bool], value: ColumnElement[Any] | Any) -> Any:
    return func.coalesce(func.sum(case((condition, value), else_=None)), 0.0)


def _count_if(condition: ColumnElement[bool]) -> Any:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


async def amount_groups(
    session: AsyncSession,
    farm_id: str,
    start: date,
    end: date,
    *,
    status: str = OperationStatus.DONE,
) -> list[AmountGroup]:
    """The amounts of operations summed in SQL per type, field, crop, product and units,
    each kind apart (see :class:`AmountGroup`)."""
    op = OperationRow
    no_amount = op.amount.is_(None)
    rate = op.rate.is_not(None) & no_amount
    legacy = (
        op.rate.is_(None)
        & no_amount
        & op.area_ha.is_(None)
        & op.yield_t_ha.is_(None)
        & op.quantity.is_not(None)
    )
    yield_ = op.yield_t_ha.is_not(None)
    result = await session.execute(
        select(
            op.op_type,
            op.field_id,
            op.crop_id,
            op.product,
            op.rate_unit,
            op.amount_unit,
            case((legacy, op.unit), else_=None).label("legacy_unit"),
            _sum_if(op.amount.is_not(None), op.amount),
            _sum_if(rate, op.rate),
            _sum_if(rate & op.area_ha.is_not(None), op.rate * op.area_ha),
            _sum_if(rate & op.area_ha.is_not(None), op.area_ha),
            _sum_if(rate & op.area_ha.is_(None), op.rate),
            _count_if(rate & op.area_ha.is_(None)),
            _sum_if(op.area_ha.is_not(None), op.area_ha),
            _sum_if(yield_ & op.area_ha.is_not(None), op.yield_t_ha * op.area_ha),
            _sum_if(yield_ & op.area_ha.is_(None), op.yield_t_ha),
            _count_if(yield_ & op.area_ha.is_(None)),
            _sum_if(legacy, op.quantity),
            _count_if(legacy),
            func.count(),
        )
        .where(*_operations_in_period(farm_id, start, end, None), op.status == status)
        .group_by(
            op.op_type,
            op.field_id,
            op.crop_id,
            op.product,
            op.rate_unit,
            op.amount_unit,
            "legacy_unit",
        )
    )
    return [_amount_group(row) for row in result]


def _amount_group(row: Row[*tuple[Any, ...]]) -> AmountGroup:
    """One row of :func:`amount_groups`' select: seven keys, then the sums and counts."""
    numbers = [float(value or 0.0) for value in row[7:]]
    return AmountGroup(
        op_type=row[0],
        field_id=row[1],
        crop_id=row[2],
        product=row[3],
        rate_unit=row[4],
        amount_unit=row[5],
        legacy_unit=row[6],
        amount=numbers[0],
        rate=numbers[1],
        rate_on_area=numbers[2],
        rate_area=numbers[3],
        rate_alone=numbers[4],
        rate_alone_ops=int(numbers[5]),
        area=numbers[6],
        yield_on_area=numbers[7],
        yield_alone=numbers[8],
        yield_alone_ops=int(numbers[9]),
        legacy=numbers[10],
        legacy_ops=int(numbers[11]),
        operations=int(numbers[12]),
    )


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
