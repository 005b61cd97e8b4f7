"""Hourly rollups of sensor readings (table ``sensor_hours``, migration 0014).

Each row holds the count, min, max and sum of one probe's readings of one type in
one UTC hour (``hour`` = whole hours since the epoch). The ingest adds every batch
it stores to the rollups in the same transaction (``add_readings``), so the rollups
always equal an aggregation of the stored readings; ``rebuild`` recomputes them
from the readings (after a bulk load that bypassed the ingest, such as the chart
benchmark's INSERT ... SELECT).

Readers of long periods (``db.repositories.sensor_buckets``) take whole hours from
here and only the partial hours at either end from the readings. Minimum, maximum,
sum and count all combine across hours, so any bucket that is a whole number of
hours (on a clock whose UTC offset is a whole number of hours) is exact.

Like every repository these take a session and never end its transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case, delete, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import SensorHourRow, SensorReadingRow
from db.repositories.profiles import dialect_insert
from db.repositories.time_buckets import HOUR, bucket_of, hour_bucket

#: Rollup rows per upsert statement (9 bound parameters each).
UPSERT_CHUNK = 1_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: (field id or None, probe, type, value, measured_at) of one stored reading.
Reading = tuple[str | None, str, str, float, datetime]
_Key = tuple[str, str, int, str, str]


def hour_of(moment: datetime) -> int:
    """The UTC hour (hours since the epoch) a moment falls in; naive means UTC."""
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return int((aware - _EPOCH).total_seconds() // HOUR)


def hour_start(hour: int) -> datetime:
    return _EPOCH + timedelta(hours=hour)


def whole_hours(since: datetime, until: datetime) -> tuple[int, int] | None:
    """The whole UTC hours inside ``since`` <= time < ``until`` as (first, end), end
    exclusive; None when there is not one whole hour."""
    first = hour_of(since)
    if hour_start(first) < since:
        first += 1
    end = hour_of(until)
    return (first, end) if first < end else None


def rollup(farm_id: str, readings: Iterable[Reading]) -> list[dict[str, Any]]:
    """The readings as rollup rows (one per type, hour, field and probe), in key
    order so that concurrent upserts lock rows in the same order."""
    found: dict[_Key, list[float]] = {}
    for field_id, sensor_id, sensor_type, value, measured_at in readings:
        key = (farm_id, sensor_type, hour_of(measured_at), field_id or "", sensor_id)
        item = found.get(key)
        if item is None:
            found[key] = [1, value, value, value]
        else:
            item[0] += 1
            item[1] = min(item[1], value)
            item[2] = max(item[2], value)
            item[3] += value
    return [
        {
            "farm_id": key[0],
            "sensor_type": key[1],
            "hour": key[2],
            "field_key": key[3],
            "sensor_id": key[4],
            "readings": int(item[0]),
            "low": item[1],
            "high": item[2],
            "total": item[3],
        }
        for key, item in sorted(found.items())
    ]


_KEY = ["farm_id", "sensor_type", "hour", "field_key", "sensor_id"]
_FIGURES = ["readings", "low", "high", "total"]


def _combining(session: AsyncSession, source: Any = None) -> Any:
    """INSERT INTO sensor_hours (of ``source``, a SELECT, or of executemany rows)
    that combines a row with the hour's existing one: counts and sums added, the
    extremes kept. The same statement on SQLite and PostgreSQL."""
    table = SensorHourRow.__table__
    upsert = dialect_insert(session)(table)
    if source is not None:
        upsert = upsert.from_select([*_KEY, *_FIGURES], source)
    new = upsert.excluded
    return upsert.on_conflict_do_update(
        index_elements=_KEY,
        set_={
            "readings": table.c.readings + new.readings,
            "low": case((new.low < table.c.low, new.low), else_=table.c.low),
            "high": case((new.high > table.c.high, new.high), else_=table.c.high),
            "total": table.c.total + new.total,
        },
    )


async def add_readings(session: AsyncSession, farm_id: str, readings: Iterable[Reading]) -> int:
    """Add newly stored readings to their hours (insert, or combine with the hour's
    row); returns how many hour rows were touched. Call it in the transaction that
    stored the readings, with only the readings it stored (not the duplicates)."""
    rows = rollup(farm_id, readings)
    if not rows:
        return 0
    statement = _combining(session)
    connection = await session.connection()
    for start in range(0, len(rows), UPSERT_CHUNK):
        await connection.execute(statement, rows[start : start + UPSERT_CHUNK])
    return len(rows)


async def rebuild(session: AsyncSession, farm_id: str | None = None) -> int:
    """Recompute the rollups (of one farm, or all) from the stored readings; returns
    the farm's (or all) hour rows. Safe beside a running ingest on PostgreSQL: a
    batch committed after this statement's snapshot is not in the SELECT, and its
    rows are combined into the rebuilt ones rather than overwritten."""
    readings = SensorReadingRow
    hours = SensorHourRow
    wipe = delete(hours)
    if farm_id is not None:
        wipe = wipe.where(hours.farm_id == farm_id)
    await session.execute(wipe)
    hour = bucket_of(readings.measured_at, HOUR, 0)
    field_key = func.coalesce(readings.field_id, "")
    keys: list[Any] = [readings.farm_id, readings.sensor_type, hour, field_key, readings.sensor_id]
    figures: list[Any] = [func.count(), func.min(readings.value), func.max(readings.value)]
    # WHERE is required: SQLite would read ON CONFLICT as the SELECT's join clause.
    source = select(*keys, *figures, func.sum(readings.value)).where(
        true() if farm_id is None else readings.farm_id == farm_id
    )
    await session.execute(_combining(session, source.group_by(*keys)))
    count = select(func.count()).select_from(hours)
    if farm_id is not None:
        count = count.where(hours.farm_id == farm_id)
    return int((await session.execute(count)).scalar_one())


def hours_query(
    columns: list[Any], farm_id: str, hours: tuple[int, int], field_id: str | None
) -> Any:
    """SELECT ``columns`` FROM sensor_hours of a farm's hours ``first`` <= hour < ``end``."""
    rows = SensorHourRow
    query = select(*columns).where(
        rows.farm_id == farm_id, rows.hour >= hours[0], rows.hour < hours[1]
    )
    if field_id is not None:
        query = query.where(rows.field_key == field_id)
    return query


async def hour_groups(
    session: AsyncSession,
    farm_id: str,
    sensor_type: str,
    hours: tuple[int, int],
    *,
    width: int,
    offset: int,
    field_id: str | None,
    by_sensor: bool,
) -> list[tuple[Any, ...]]:
    """(field, probe or None, bucket, count, min, max, sum) of the type's hours
    grouped by field (and probe) and bucket, as the database returns them; field
    None for probes without one."""
    rows = SensorHourRow
    bucket = hour_bucket(rows.hour, width, offset).label("bucket")
    keys: list[Any] = [rows.field_key, rows.sensor_id] if by_sensor else [rows.field_key]
    columns = [
        *keys,
        bucket,
        func.sum(rows.readings),
        func.min(rows.low),
        func.max(rows.high),
        func.sum(rows.total),
    ]
    query = hours_query(columns, farm_id, hours, field_id).where(rows.sensor_type == sensor_type)
    connection = await session.connection()
    result = await connection.execute(query.group_by(*keys, bucket))
    # field_key "" is a probe without a field; the caller converts the figures.
    return [
        (values[0] or None, values[1] if by_sensor else None, *values[-5:])
        for values in (tuple(row) for row in result)
    ]


async def hour_counts(
    session: AsyncSession, farm_id: str, hours: tuple[int, int], *, field_id: str | None
) -> tuple[int, int]:
    """(readings, hour rows) of the farm's hours ``first`` <= hour < ``end``: how
    many readings there are and how many rows an hourly sheet of them has."""
    rows = SensorHourRow
    query = hours_query(
        [func.coalesce(func.sum(rows.readings), 0), func.count()], farm_id, hours, field_id
    )
    result = await session.execute(query)
    readings, groups = result.one()
    return int(readings), int(groups)
