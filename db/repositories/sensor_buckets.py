"""Sensor readings aggregated into time buckets by the database.

A chart of 90 days on a farm with a million readings needs a few thousand points,
not a million rows: the database groups the readings into buckets of ``width``
seconds (min, max, sum and count per bucket) and only the groups cross the wire.
The bucket of a reading is ``floor((epoch seconds + offset) / width)``; ``offset``
is the local time zone's UTC offset, so buckets of a day (or an hour) start at
local midnight. A caller whose period spans a daylight-saving change queries each
constant-offset part separately (``pipeline.farm.sensors.series``).

When the width and the offset are whole hours, the whole UTC hours of the period
come from the hourly rollups (``sensor_rollups``, kept at ingest) and only the
partial hours at its ends from the readings: a 90-day period reads about two
thousand hours per probe whatever the number of readings. The bucket expressions
are in ``time_buckets``.

Like every repository these take a session and never end its transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import SensorReadingRow
from db.repositories.reporting import as_utc
from db.repositories.sensor_rollups import hour_counts, hour_groups, hour_start, whole_hours
from db.repositories.time_buckets import HOUR, bucket_of


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


Parts = tuple[list[tuple[datetime, datetime]], tuple[int, int] | None]


def split_period(since: datetime, until: datetime, *, width: int, offset: int) -> Parts:
    """The stretches of ``since``..``until`` read from the readings, and the whole
    UTC hours (first, end) read from the rollups - None when the buckets are not
    whole hours on the clock, or the period holds no whole hour."""
    since, until = as_utc(since), as_utc(until)
    hourly = width % HOUR == 0 and offset % HOUR == 0
    hours = whole_hours(since, until) if hourly else None
    if hours is None:
        return [(since, until)], None
    ends = [(since, hour_start(hours[0])), (hour_start(hours[1]), until)]
    return [(start, end) for start, end in ends if start < end], hours


async def _raw_buckets(
    session: AsyncSession,
    farm_id: str,
    sensor_type: str,
    period: tuple[datetime, datetime],
    *,
    width: int,
    offset: int,
    field_id: str | None,
    by_sensor: bool,
) -> list[tuple[Any, ...]]:
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
        rows.measured_at >= period[0],
        rows.measured_at < period[1],
    )
    if field_id is not None:
        query = query.where(rows.field_id == field_id)
    # Core rows on the session's connection: no ORM loading for plain tuples.
    connection = await session.connection()
    result = await connection.execute(query.group_by(*keys, bucket))
    return [
        (values[0], values[1] if by_sensor else None, *values[-5:])
        for values in (tuple(row) for row in result)
    ]


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
    probe, with ``by_sensor``) and bucket; ordered by bucket, field, probe. Whole
    hours come from the rollups when the buckets are whole hours."""
    stretches, hours = split_period(since, until, width=width, offset=offset)
    groups: list[tuple[Any, ...]] = []
    for stretch in stretches:
        groups += await _raw_buckets(
            session,
            farm_id,
            sensor_type,
            stretch,
            width=width,
            offset=offset,
            field_id=field_id,
            by_sensor=by_sensor,
        )
    if hours is not None:
        groups += await hour_groups(
            session,
            farm_id,
            sensor_type,
            hours,
            width=width,
            offset=offset,
            field_id=field_id,
            by_sensor=by_sensor,
        )
    # A bucket may get a part from the readings and a part from the rollups.
    found: dict[tuple[str | None, str | None, int], BucketRow] = {}
    for field, sensor, index, count, low, high, total in groups:
        key = (field, sensor, int(index))
        seen = found.get(key)
        found[key] = BucketRow(
            field,
            sensor,
            int(index),
            int(count) + (seen.count if seen else 0),
            min(float(low), seen.minimum) if seen else float(low),
            max(float(high), seen.maximum) if seen else float(high),
            float(total) + (seen.total if seen else 0.0),
        )
    return sorted(
        found.values(), key=lambda row: (row.bucket, row.field_id or "", row.sensor_id or "")
    )


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
    stretches, hours = split_period(since, until, width=HOUR, offset=0)
    count = 0
    for start, end in stretches:
        query = select(func.count()).where(
            rows.farm_id == farm_id, rows.measured_at >= start, rows.measured_at < end
        )
        if field_id is not None:
            query = query.where(rows.field_id == field_id)
        count += int((await session.execute(query)).scalar_one())
    if hours is not None:
        count += (await hour_counts(session, farm_id, hours, field_id=field_id))[0]
    return count


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
    the rows an aggregated sheet would have. Hourly groups of whole hours are the
    rollups' rows."""
    rows = SensorReadingRow
    if width == HOUR:
        stretches, hours = split_period(since, until, width=HOUR, offset=0)
    else:
        stretches, hours = [(as_utc(since), as_utc(until))], None
    count = 0
    bucket = bucket_of(rows.measured_at, width, 0)
    for start, end in stretches:
        query = select(rows.field_id, rows.sensor_id, rows.sensor_type, bucket).where(
            rows.farm_id == farm_id, rows.measured_at >= start, rows.measured_at < end
        )
        if field_id is not None:
            query = query.where(rows.field_id == field_id)
        keys = (rows.field_id, rows.sensor_id, rows.sensor_type, bucket)
        groups = query.group_by(*keys).subquery()
        count += int((await session.execute(select(func.count()).select_from(groups))).scalar_one())
    if hours is not None:
        count += (await hour_counts(session, farm_id, hours, field_id=field_id))[1]
    return count


async def unit_of(session: AsyncSession, farm_id: str, sensor_type: str) -> str:
    """The unit the farm's readings of a type are stored in (one per type)."""
    rows = SensorReadingRow
    result = await session.execute(
        select(rows.unit).where(rows.farm_id == farm_id, rows.sensor_type == sensor_type).limit(1)
    )
    return result.scalar_one_or_none() or ""
