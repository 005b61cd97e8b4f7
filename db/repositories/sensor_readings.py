"""SQL access to raw sensor readings and the farms' bearer tokens: the bulk insert,
the newest value per field and type, a token's farm. Never commits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmTokenRow, SensorReadingRow
from db.repositories.profiles import dialect_insert
from db.repositories.sensor_rollups import Reading

#: Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits.
INSERT_CHUNK = 1_000


async def insert_new(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> list[Reading]:
    """Insert the readings (``sensor_readings`` column values) not stored yet; returns
    those inserted as (field_id, sensor_id, sensor_type, value, measured_at)."""
    table = SensorReadingRow.__table__
    # RETURNING tells what was inserted on both dialects (asyncpg's executemany has
    # no row count); SQLAlchemy sends each chunk as multi-row INSERTs.
    c = table.c
    statement = (
        dialect_insert(session)(table)
        .on_conflict_do_nothing()
        .returning(c.field_id, c.sensor_id, c.sensor_type, c.value, c.measured_at)
    )
    stored: list[Reading] = []
    if rows:
        connection = await session.connection()
        for start in range(0, len(rows), INSERT_CHUNK):
            result = await connection.execute(statement, rows[start : start + INSERT_CHUNK])
            stored += [(r[0], r[1], r[2], r[3], r[4]) for r in result]
    return stored


def current_first(rows: type[SensorReadingRow]) -> tuple[Any, ...]:
    """The order that puts a probe's current value first (issue 29 point 7): by when
    it was measured, but never later than when it arrived. A device clock running
    ahead (within the accepted skew) stamps a reading minutes into the future; by its
    stamp alone it would stand as the latest and hide the readings that arrive after
    it. Readings of one batch arrive together and keep their measured order."""
    arrived_by = case(
        (rows.measured_at > rows.received_at, rows.received_at), else_=rows.measured_at
    )
    return (arrived_by.desc(), rows.measured_at.desc(), rows.id.desc())


@dataclass(frozen=True, slots=True)
class LatestReading:
    field_id: str | None
    sensor_type: str
    sensor_id: str
    value: float
    unit: str
    measured_at: datetime


def _utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes (stored as UTC), PostgreSQL aware ones.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


async def latest_readings(
    session: AsyncSession,
    farm_id: str,
    *,
    field_id: str | None = None,
    sensor_type: str | None = None,
    sensor_types_in: Sequence[str] | None = None,
    since: datetime | None = None,
) -> list[LatestReading]:
    """The newest reading per (field, sensor type) of a farm, optionally of one field
    and/or type (or several types), optionally only among readings at or after
    ``since``. Ordered by field then type; readings without a field have field None.
    Runs in the caller's read."""
    rows = SensorReadingRow
    conditions = [rows.farm_id == farm_id]
    if sensor_type is not None:
        conditions.append(rows.sensor_type == sensor_type)
    if sensor_types_in is not None:
        conditions.append(rows.sensor_type.in_(list(sensor_types_in)))
    if field_id is not None:
        conditions.append(rows.field_id == field_id)
    if since is not None:
        conditions.append(rows.measured_at >= _utc(since))
    rank = (
        func.row_number()
        .over(
            partition_by=(rows.field_id, rows.sensor_type),
            order_by=current_first(rows),
        )
        .label("rank")
    )
    ranked = (
        select(
            rows.field_id,
            rows.sensor_type,
            rows.sensor_id,
            rows.value,
            rows.unit,
            rows.measured_at,
            rank,
        )
        .where(*conditions)
        .subquery()
    )
    query = (
        select(ranked)
        .where(ranked.c.rank == 1)
        .order_by(ranked.c.field_id.is_(None), ranked.c.field_id, ranked.c.sensor_type)
    )
    result = await session.execute(query)
    return [
        LatestReading(
            row.field_id,
            row.sensor_type,
            row.sensor_id,
            row.value,
            row.unit,
            _utc(row.measured_at),
        )
        for row in result
    ]


def add_token(session: AsyncSession, token_hash: str, farm_id: str, label: str) -> None:
    session.add(FarmTokenRow(token_hash=token_hash, farm_id=farm_id, label=label))


async def farm_of_token(session: AsyncSession, token_hash: str) -> str | None:
    result = await session.execute(
        select(FarmTokenRow.farm_id).where(FarmTokenRow.token_hash == token_hash)
    )
    return result.scalar_one_or_none()
