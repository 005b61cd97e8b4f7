"""The queries behind the alert watcher (pipeline/farm/sensors/alerts.py): the farms that sent
readings lately, each probe's newest value, what each probe sent lately and the
episodes whose message is due. Run in the watcher's transactions; never commit."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import AlertRow, FarmProfileRow, FieldRow, SensorReadingRow, UserProfileRow
from db.repositories.reporting import as_utc
from db.repositories.sensor_readings import current_first


@dataclass(frozen=True, slots=True)
class WatchedFarm:
    """A farm with readings in the window, and what its alerts need of its profile."""

    farm_id: str
    user_id: str
    alert_thresholds: dict[str, Any] | None


async def farms_with_readings(
    session: AsyncSession,
    types: Collection[str],
    *,
    since: datetime,
    until: datetime | None = None,
) -> list[WatchedFarm]:
    """Farms with a reading of one of ``types`` at or after ``since`` (and before
    ``until``, when given), by farm id, less those whose sensors an operator switched
    off (their readings are kept, nobody is alerted by them): ``farm_ids_with_readings``
    then ``watched_farms``."""
    ids = await farm_ids_with_readings(session, types, since=since, until=until)
    return await watched_farms(session, ids)


async def farm_ids_with_readings(
    session: AsyncSession,
    types: Collection[str],
    *,
    since: datetime,
    until: datetime | None = None,
) -> list[str]:
    """The ids of the farms with a reading of one of ``types`` in [since, until), in
    order. One range over the window of readings (``ix_sensor_readings_recent``), the
    farms' keys from their index alone: the cost follows the readings of the window,
    not the number of farms (a probe per farm was 100,000 subqueries at 100,000
    farms). The watcher asks for its lookback an hour at a time and reads the farms'
    profiles afterwards, by key (``watched_farms``), so no one transaction walks a week
    of readings or parses every farm's thresholds once per hour of it."""
    readings = SensorReadingRow
    window = [readings.measured_at >= as_utc(since)]
    if until is not None:
        window.append(readings.measured_at < as_utc(until))
    # No DISTINCT: IN already treats the list as a set, and SQLite would walk a whole
    # index in farm order to make it distinct instead of the window's range.
    recent = select(readings.farm_id).where(*window, readings.sensor_type.in_(list(types)))
    result = await session.execute(
        select(FarmProfileRow.farm_id)
        .where(FarmProfileRow.farm_id.in_(recent))
        .order_by(FarmProfileRow.farm_id)
    )
    return list(result.scalars())


async def watched_farms(session: AsyncSession, farm_ids: Collection[str]) -> list[WatchedFarm]:
    """What the alerts need of these farms' profiles, by farm id; a farm whose sensors
    an operator switched off is left out."""
    if not farm_ids:
        return []
    result = await session.execute(
        select(
            FarmProfileRow.farm_id,
            FarmProfileRow.user_id,
            FarmProfileRow.alert_thresholds,
            FarmProfileRow.iot_sensors,
        )
        .where(FarmProfileRow.farm_id.in_(list(farm_ids)))
        .order_by(FarmProfileRow.farm_id)
    )
    return [
        WatchedFarm(r.farm_id, r.user_id, r.alert_thresholds)
        for r in result
        if not (r.iot_sensors or {}).get("switched_off")
    ]


@dataclass(frozen=True, slots=True)
class ProbeValue:
    """A probe's newest reading of one type."""

    field_id: str | None
    sensor_type: str
    sensor_id: str
    value: float
    measured_at: datetime


@dataclass(frozen=True, slots=True)
class ProbeActivity:
    """What a probe sent within the lookback."""

    sensor_id: str
    field_id: str | None
    sensor_type: str  # of its newest reading
    last_at: datetime
    readings: int


async def newest_per_probe(
    session: AsyncSession, farm_id: str, types: Collection[str], *, since: datetime
) -> list[ProbeValue]:
    """The newest reading of each (field, type, probe) at or after ``since``."""
    rows = SensorReadingRow
    rank = (
        func.row_number()
        .over(
            partition_by=(rows.field_id, rows.sensor_type, rows.sensor_id),
            order_by=current_first(rows),
        )
        .label("rank")
    )
    ranked = (
        select(rows.field_id, rows.sensor_type, rows.sensor_id, rows.value, rows.measured_at, rank)
        .where(
            rows.farm_id == farm_id,
            rows.sensor_type.in_(list(types)),
            rows.measured_at >= as_utc(since),
        )
        .subquery()
    )
    result = await session.execute(select(ranked).where(ranked.c.rank == 1))
    return [
        ProbeValue(r.field_id, r.sensor_type, r.sensor_id, r.value, as_utc(r.measured_at))
        for r in result
    ]


async def probe_activity(
    session: AsyncSession,
    farm_id: str,
    types: Collection[str],
    *,
    since: datetime,
    skip_sources: Collection[str] = (),
) -> list[ProbeActivity]:
    """Per probe (``sensor_id``): its newest reading's time, field and type, and how
    many readings it sent at or after ``since`` (sources in ``skip_sources`` left out).
    Filtering on the types keeps the query on the (farm, type, time) index."""
    rows = SensorReadingRow
    query = select(
        rows.sensor_id, rows.field_id, rows.sensor_type, func.max(rows.measured_at), func.count()
    ).where(
        rows.farm_id == farm_id,
        rows.sensor_type.in_(list(types)),
        rows.measured_at >= as_utc(since),
    )
    if skip_sources:
        query = query.where(rows.source.not_in(list(skip_sources)))
    result = await session.execute(query.group_by(rows.sensor_id, rows.field_id, rows.sensor_type))
    probes: dict[str, ProbeActivity] = {}
    for sensor_id, field_id, sensor_type, last, count in result:
        last_at = as_utc(last)
        known = probes.get(sensor_id)
        if known is None:
            probes[sensor_id] = ProbeActivity(sensor_id, field_id, sensor_type, last_at, int(count))
            continue
        newest = known if known.last_at >= last_at else None
        probes[sensor_id] = ProbeActivity(
            sensor_id,
            newest.field_id if newest else field_id,
            newest.sensor_type if newest else sensor_type,
            max(known.last_at, last_at),
            known.readings + int(count),
        )
    return sorted(probes.values(), key=lambda p: p.sensor_id)


@dataclass(frozen=True, slots=True)
class DueAlert:
    """An episode whose message is due, and what sending it needs of its farmer."""

    alert: AlertRow
    user_id: str
    timezone: str | None
    language: str
    active: bool


async def due_alerts(session: AsyncSession, *, recovered_since: datetime) -> list[DueAlert]:
    """Episodes whose message is due, by id: open ones nobody was told of yet, and
    ones that ended at or after ``recovered_since`` after the farmer was told, whose
    recovery was not sent. Two reads of ``ix_alerts_due`` (one per kind) instead of
    one OR over every episode ever opened."""
    base = (
        select(
            AlertRow,
            FarmProfileRow.user_id,
            FarmProfileRow.timezone,
            UserProfileRow.preferred_language,
            UserProfileRow.active,
        )
        .join(FarmProfileRow, FarmProfileRow.farm_id == AlertRow.farm_id)
        .join(UserProfileRow, UserProfileRow.user_id == FarmProfileRow.user_id)
    )
    untold = base.where(AlertRow.ended_at.is_(None), AlertRow.notified_at.is_(None))
    recovered = base.where(
        AlertRow.ended_at >= recovered_since,
        AlertRow.notified_at.is_not(None),
        AlertRow.recovery_notified_at.is_(None),
    )
    due = [DueAlert(*row) for query in (untold, recovered) for row in await session.execute(query)]
    return sorted(due, key=lambda item: item.alert.id)


async def open_alerts(
    session: AsyncSession, farm_id: str, *, oldest_first: bool = False
) -> list[AlertRow]:
    """The farm's episodes not ended yet (in no particular order unless ``oldest_first``)."""
    query = select(AlertRow).where(AlertRow.farm_id == farm_id, AlertRow.ended_at.is_(None))
    if oldest_first:
        query = query.order_by(AlertRow.started_at)
    result = await session.execute(query)
    return list(result.scalars())


def add_alert(session: AsyncSession, row: AlertRow) -> None:
    """A new episode, inserted at the next flush."""
    session.add(row)


async def alert(session: AsyncSession, alert_id: int) -> AlertRow | None:
    return await session.get(AlertRow, alert_id)


async def field_names_of_farms(
    session: AsyncSession, farm_ids: Collection[str]
) -> dict[tuple[str, str], str]:
    """(farm_id, field_id) -> the field's name, for the fields of ``farm_ids``."""
    result = await session.execute(
        select(FieldRow.farm_id, FieldRow.field_id, FieldRow.name).where(
            FieldRow.farm_id.in_(farm_ids)
        )
    )
    return {(row.farm_id, row.field_id): row.name for row in result}
