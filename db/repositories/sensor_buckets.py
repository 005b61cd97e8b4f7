"""Sensor readings aggregated into time buckets by the database.

A chart of 90 days on a farm with a million readings needs a few thousand points,
not a million rows: the database groups the readings into buckets of ``width``
seconds (min, max, sum and count per bucket) and only the groups cross the wire.
The bucket of a reading is ``floor((epoch seconds + offset) / width)``; ``offset``
is the local time zone's UTC offset, so buckets of a day (or an hour) start at
local midnight. A caller whose period spans a daylight-saving change queries each
constant-offset part separately (``pipeline.farm.sensor_series``).

The bucket expression is compiled per dialect (SQLite ``strftime('%s')``,
PostgreSQL ``EXTRACT(EPOCH ...)``). Width and offset are whole numbers rendered
into the SQL text, not bound parameters: PostgreSQL only accepts a GROUP BY on an
expression that is textually the selected one, which two separately bound
parameters are not.

Like every repository these take a session and never end its transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from db.models import SensorReadingRow
from db.repositories.reporting import as_utc


class bucket_of(FunctionElement[int]):
    """``floor((epoch(moment) + offset) / width)`` as a BIGINT."""

    type = BigInteger()
    inherit_cache = True
    name = "bucket_of"

    def __init__(self, moment: Any, width: int, offset: int) -> None:
        if int(width) <= 0:
            raise ValueError(f"bucket width must be positive, not {width}")
        # Literal columns: part of the SQL text and of the statement cache key.
        super().__init__(moment, literal_column(str(int(width))), literal_column(str(int(offset))))


def _parts(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> tuple[str, str, str]:
    moment, width, offset = (compiler.process(c, **kw) for c in element.clauses)
    return moment, width, offset


@compiles(bucket_of)
def _bucket_default(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> str:
    moment, width, offset = _parts(element, compiler, **kw)
    return f"CAST(floor((EXTRACT(EPOCH FROM {moment}) + {offset}) / {width}) AS BIGINT)"


@compiles(bucket_of, "sqlite")
def _bucket_sqlite(element: bucket_of, compiler: SQLCompiler, **kw: Any) -> str:
    moment, width, offset = _parts(element, compiler, **kw)
    # SQLite stores the UTC time as text; strftime('%s') parses it to epoch seconds.
    # Integer division of non-negative integers is the floor.
    return f"((CAST(strftime('%s', {moment}) AS INTEGER) + {offset}) / {width})"


@dataclass(frozen=True, slots=True)
class BucketRow:
    """One bucket of one field's (or one probe's) readings."""

    field_id: str | None
    sensor_id: str | None  # None unless grouped by probe
    bucket: int
    count: int
    minimum: float
    maximum: float
    total: float


async def reading_buckets(
    session: AsyncSession,
    farm_id: str,
    sensor_type: str,
    *,
    since: datetime,
    until: datetime,
    width: int,
    offset: int = 0,
    field_id: str | None = None,
    by_sensor: bool = False,
) -> list[BucketRow]:
    """Readings of one type in ``since`` <= time < ``until`` grouped by field (and
    probe, with ``by_sensor``) and bucket; ordered by bucket, field, probe."""
    rows = SensorReadingRow
    bucket = bucket_of(rows.measured_at, width, offset).label("bucket")
    keys: list[Any] = [rows.field_id, rows.sensor_id] if by_sensor else [rows.field_id]
    query = select(
        *keys,
        bucket,
        func.count(),
        func.min(rows.value),
        func.max(rows.value),
        func.sum(rows.value),
    ).where(
        rows.farm_id == farm_id,
        rows.sensor_type == sensor_type,
        rows.measured_at >= as_utc(since),
        rows.measured_at < as_utc(until),
    )
    if field_id is not None:
        query = query.where(rows.field_id == field_id)
    query = query.group_by(*keys, bucket).order_by(bucket, *keys)
    # Core rows on the session's connection: no ORM loading for plain tuples.
    connection = await session.connection()
    result = await connection.execute(query)
    found: list[BucketRow] = []
    for row in result:
        values = tuple(row)
        sensor = values[1] if by_sensor else None
        index, count, low, high, total = values[-5:]
        found.append(
            BucketRow(
                values[0], sensor, int(index), int(count), float(low), float(high), float(total)
            )
        )
    return found


async def count_readings(
    session: AsyncSession,
    farm_id: str,
    *,
    since: datetime,
    until: datetime,
    field_id: str | None = None,
) -> int:
    """How many readings of any type the farm has in ``since`` <= time < ``until``."""
    rows = SensorReadingRow
    query = select(func.count()).where(
        rows.farm_id == farm_id,
        rows.measured_at >= as_utc(since),
        rows.measured_at < as_utc(until),
    )
    if field_id is not None:
        query = query.where(rows.field_id == field_id)
    result = await session.execute(query)
    return int(result.scalar_one())


async def count_buckets(
    session: AsyncSession,
    farm_id: str,
    *,
    since: datetime,
    until: datetime,
    width: int,
    field_id: str | None = None,
) -> int:
    """How many (field, probe, type, bucket) groups the readings make (UTC buckets):
    the rows an aggregated sheet would have."""
    rows = SensorReadingRow
    bucket = bucket_of(rows.measured_at, width, 0)
    query = select(rows.field_id, rows.sensor_id, rows.sensor_type, bucket).where(
        rows.farm_id == farm_id,
        rows.measured_at >= as_utc(since),
        rows.measured_at < as_utc(until),
    )
    if field_id is not None:
        query = query.where(rows.field_id == field_id)
    groups = query.group_by(rows.field_id, rows.sensor_id, rows.sensor_type, bucket).subquery()
    result = await session.execute(select(func.count()).select_from(groups))
    return int(result.scalar_one())


async def unit_of(session: AsyncSession, farm_id: str, sensor_type: str) -> str:
    """The unit the farm's readings of a type are stored in (one per type)."""
    rows = SensorReadingRow
    result = await session.execute(
        select(rows.unit).where(rows.farm_id == farm_id, rows.sensor_type == sensor_type).limit(1)
    )
    return result.scalar_one_or_none() or ""
