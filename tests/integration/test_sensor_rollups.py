"""Hourly rollups (``sensor_hours``) against an independent aggregation of the raw
readings: after mixed ingests (overlapping hours, duplicates, out-of-order and
concurrent batches, probes with and without a field, a refused batch), after the
migration's backfill, and through the bucket readers whose whole hours come from
the rollups - on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import calendar
import os
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.migrate import downgrade, upgrade
from db.models import FarmProfileRow, FieldRow, SensorHourRow, SensorReadingRow, UserProfileRow
from db.repositories import sensor_rollups
from db.repositories.sensor_buckets import count_buckets, count_readings, reading_buckets
from db.uow import Database
from pipeline.farm.sensors.readings import InvalidBatch, SensorTypes, parse_batch
from pipeline.farm.sensors.store import SensorStore

TYPES = SensorTypes.load()
FARM = "farm:rollups"
OTHER = "farm:rollups-other"
NORTH, SOUTH = "field:north", "field:south"
START = datetime(2026, 10, 3, 21, 7, 13, tzinfo=UTC)
NOW = START + timedelta(days=5)

Hours = dict[tuple[str, str, int, str, str], tuple[int, float, float, float]]


def epoch_hour(moment: datetime) -> int:
    """The UTC hour by the calendar module, not by the code under test."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return calendar.timegm(aware.utctimetuple()) // 3600


def item(minutes: float, value: float, **extra: Any) -> dict[str, Any]:
    kind = extra.pop("kind", "soil_moisture")
    return {
        "sensor_id": extra.pop("sensor", "probe-n1"),
        "sensor_type": kind,
        "value": value,
        "unit": "%" if kind == "soil_moisture" else "°C",
        "measured_at": (START + timedelta(minutes=minutes)).isoformat(),
        "field_id": extra.pop("field", NORTH),
    }


async def add_farms(factory: async_sessionmaker[AsyncSession]) -> None:
    async with factory() as session:
        for farm, user in ((FARM, "tg:31"), (OTHER, "tg:32")):
            session.add(UserProfileRow(user_id=user))
            await session.flush()
            session.add(FarmProfileRow(farm_id=farm, user_id=user))
            await session.flush()
            session.add(FieldRow(farm_id=farm, field_id=NORTH, name="Північне"))
            session.add(FieldRow(farm_id=farm, field_id=SOUTH, name="Південне"))
        await session.commit()


async def raw_readings(factory: async_sessionmaker[AsyncSession]) -> list[Any]:
    async with factory() as session:
        rows = SensorReadingRow
        result = await session.execute(
            select(
                rows.farm_id,
                rows.sensor_type,
                rows.field_id,
                rows.sensor_id,
                rows.value,
                rows.measured_at,
            )
        )
        return list(result)


def independent_hours(readings: list[Any]) -> Hours:
    grouped: dict[tuple[str, str, int, str, str], list[float]] = defaultdict(list)
    for farm, kind, field, sensor, value, at in readings:
        grouped[(farm, kind, epoch_hour(at), field or "", sensor)].append(value)
    return {key: (len(v), min(v), max(v), sum(v)) for key, v in grouped.items()}


async def stored_hours(factory: async_sessionmaker[AsyncSession]) -> Hours:
    async with factory() as session:
        result = await session.execute(select(SensorHourRow))
        return {
            (r.farm_id, r.sensor_type, r.hour, r.field_key, r.sensor_id): (
                r.readings,
                r.low,
                r.high,
                r.total,
            )
            for r in result.scalars()
        }


def assert_same(found: Hours, expected: Hours) -> None:
    assert found.keys() == expected.keys()
    for key, (count, low, high, total) in expected.items():
        assert found[key][:3] == (count, low, high), key
        assert found[key][3] == pytest.approx(total), key


async def ingest_mixed(store: SensorStore) -> int:
    """Several batches as integrations send them; returns the readings accepted."""

    def batch(items: list[dict[str, Any]]) -> Any:
        return parse_batch(items, TYPES, now=NOW)

    first = [item(m * 7.5, 20 + (m % 9) * 0.5) for m in range(60)]  # 7.5 h of probe n1
    first += [item(m * 20, 30 - m * 0.25, sensor="probe-s1", field=SOUTH) for m in range(30)]
    first += [item(m * 45, 4 + m, kind="temperature", sensor="air-1", field=None) for m in range(9)]
    accepted = (await store.ingest(FARM, batch(first), source="api")).accepted
    # The same hours again: new minutes, exact duplicates, a repeat inside the batch,
    # a field named as the farm calls it.
    second = [item(m * 7.5 + 3, 10 + m % 5) for m in range(40)]
    second += first[:25] + [first[70]] * 3
    second += [item(m * 11 + 1, 55.0, sensor="probe-s2", field="південне") for m in range(12)]
    accepted += (await store.ingest(FARM, batch(second), source="csv")).accepted
    # Older readings after newer ones, and another farm in the same hours.
    older = [item(-m * 13 - 1, 18.0 + m % 3, sensor="probe-n1") for m in range(50)]
    accepted += (await store.ingest(FARM, batch(older), source="api")).accepted
    other = [item(m * 15, 99.0, sensor="probe-n1") for m in range(20)]
    await store.ingest(OTHER, batch(other), source="api")
    # A refused batch (unknown field) changes nothing, rollups included.
    with pytest.raises(InvalidBatch):
        await store.ingest(FARM, batch([item(5, 1.0), item(6, 1.0, field="Нема")]), source="api")
    # Two batches at once on the same hours.
    left = batch([item(m * 6 + 2, 40.0 + m % 4) for m in range(60)])
    right = batch([item(m * 6 + 4, 1.0 + m % 7, sensor="probe-n2") for m in range(60)])
    results = await asyncio.gather(
        store.ingest(FARM, left, source="api"), store.ingest(FARM, right, source="api")
    )
    return accepted + sum(r.accepted for r in results)


def independent_buckets(
    readings: list[Any], kind: str, since: datetime, until: datetime, width: int, offset: int
) -> dict[tuple[str | None, str, int], tuple[int, float, float, float]]:
    grouped: dict[tuple[str | None, str, int], list[float]] = defaultdict(list)
    for farm, reading_kind, field, sensor, value, at in readings:
        moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
        if farm != FARM or reading_kind != kind or not since <= moment < until:
            continue
        bucket = (calendar.timegm(moment.utctimetuple()) + offset) // width
        grouped[(field, sensor, bucket)].append(value)
    return {key: (len(v), min(v), max(v), sum(v)) for key, v in grouped.items()}


async def check_rollups(url: str) -> None:
    engine = create_engine(url)
    try:
        factory = create_session_factory(engine)
        await add_farms(factory)
        db = Database(factory)
        accepted = await ingest_mixed(SensorStore(db, TYPES))
        readings = await raw_readings(factory)
        assert accepted == sum(1 for r in readings if r[0] == FARM)
        expected = independent_hours(readings)
        assert_same(await stored_hours(factory), expected)
        # rebuild() (after bulk loads, a rolling upgrade) computes the same rows, of
        # one farm without touching another's, then of all.
        ours = {key: value for key, value in expected.items() if key[0] == FARM}
        async with db.write() as session:
            await session.execute(update(SensorHourRow).values(readings=999, total=0.0))
            await session.execute(delete(SensorHourRow).where(SensorHourRow.farm_id == OTHER))
            assert await sensor_rollups.rebuild(session, FARM) == len(ours)
        assert_same(await stored_hours(factory), ours)
        async with db.write() as session:
            assert await sensor_rollups.rebuild(session) == len(expected)
        assert_same(await stored_hours(factory), expected)
        # Readers: ragged ends come from the readings, whole hours from the rollups.
        since, until = START + timedelta(minutes=-170), START + timedelta(hours=8, minutes=31)
        for width, offset in ((3 * 3600, 3 * 3600), (3600, 0), (86_400, 2 * 3600), (900, 0)):
            async with db.read() as session:
                rows = await reading_buckets(
                    session,
                    FARM,
                    "soil_moisture",
                    since=since,
                    until=until,
                    width=width,
                    offset=offset,
                    by_sensor=True,
                )
            want = independent_buckets(readings, "soil_moisture", since, until, width, offset)
            got = {(r.field_id, r.sensor_id, r.bucket): r for r in rows}
            assert got.keys() == want.keys(), (width, offset)
            for key, (count, low, high, total) in want.items():
                row = got[key]
                assert (row.count, row.minimum, row.maximum) == (count, low, high)
                assert row.total == pytest.approx(total)
        in_period = [
            r
            for r in readings
            if r[0] == FARM and since <= (r[5] if r[5].tzinfo else r[5].replace(tzinfo=UTC)) < until
        ]
        groups = {(r[2], r[3], r[1], epoch_hour(r[5])) for r in in_period}
        async with db.read() as session:
            assert await count_readings(session, FARM, since=since, until=until) == len(in_period)
            found = await count_buckets(session, FARM, since=since, until=until, width=3600)
            assert found == len(groups)
            south = await count_readings(session, FARM, since=since, until=until, field_id=SOUTH)
            assert south == sum(1 for r in in_period if r[2] == SOUTH)
    finally:
        await engine.dispose()


async def test_rollups_follow_mixed_ingests_on_sqlite(sqlite_url: str) -> None:
    await check_rollups(sqlite_url)


@pytest.mark.postgres
async def test_rollups_follow_mixed_ingests_on_postgres(migrated_postgres_url: str) -> None:
    await check_rollups(migrated_postgres_url)


def test_hours_of_a_period() -> None:
    at = datetime(2026, 10, 1, 10, 0, tzinfo=UTC)
    hour = sensor_rollups.hour_of(at)
    assert sensor_rollups.hour_start(hour) == at
    assert sensor_rollups.whole_hours(at, at + timedelta(hours=3)) == (hour, hour + 3)
    ragged = sensor_rollups.whole_hours(at + timedelta(seconds=1), at + timedelta(minutes=179))
    assert ragged == (hour + 1, hour + 2)
    assert sensor_rollups.whole_hours(at + timedelta(minutes=5), at + timedelta(minutes=55)) is None


def direct(n: int, minutes: int, **fields: Any) -> SensorReadingRow:
    """A reading written straight into the table, not through the ingest."""
    values: dict[str, Any] = {
        "farm_id": FARM, "field_id": NORTH, "sensor_id": "probe-old",
        "sensor_type": "soil_moisture", "value": float(n), "unit": "%", "source": "api",
        "measured_at": START + timedelta(minutes=minutes * n),
    }  # fmt: skip
    return SensorReadingRow(**(values | fields))


async def check_backfill(url: str) -> None:
    """Readings stored before migration 0014 are rolled up by it. The farms are made
    at head and the schema taken back to 0013, so later migrations' columns never
    stand in the way."""
    await asyncio.to_thread(upgrade, url, "head")
    engine = create_engine(url)
    try:
        await add_farms(create_session_factory(engine))
    finally:
        await engine.dispose()
    await asyncio.to_thread(downgrade, url, "0013_agronomist_questions")
    engine = create_engine(url)
    try:
        factory = create_session_factory(engine)
        async with factory() as session:
            session.add_all(
                direct(
                    n,
                    17,
                    farm_id=FARM if n % 5 else OTHER,
                    field_id=(NORTH, SOUTH, None)[n % 3],
                    sensor_id=f"probe-{n % 4}",
                    sensor_type=("soil_moisture", "temperature")[n % 2],
                    value=float(n % 17),
                )
                for n in range(400)
            )
            await session.commit()
        await engine.dispose()
        await asyncio.to_thread(upgrade, url, "head")
        engine = create_engine(url)
        factory = create_session_factory(engine)
        async with factory() as session:
            version = await session.scalar(text("SELECT version_num FROM alembic_version"))
        assert version is not None and version >= "0014"
        expected = independent_hours(await raw_readings(factory))
        assert len(expected) > 100
        assert_same(await stored_hours(factory), expected)
    finally:
        await engine.dispose()


async def test_migration_backfills_rollups_on_sqlite(tmp_path: Any) -> None:
    await check_backfill(f"sqlite+aiosqlite:///{tmp_path / 'backfill.db'}")


@pytest.mark.postgres
async def test_migration_backfills_rollups_on_postgres(postgres_url: str) -> None:
    await check_backfill(postgres_url)


def test_the_cli_rebuilds_rollups_of_readings_stored_around_the_ingest(sqlite_url: str) -> None:
    """Readings written straight into the table (as an instance still on the old code
    does during a rolling upgrade) get their rollups from `stepan rollups`."""

    async def store_directly() -> list[Any]:
        engine = create_engine(sqlite_url)
        try:
            factory = create_session_factory(engine)
            await add_farms(factory)
            async with factory() as session:
                session.add_all(direct(n, 7) for n in range(50))
                await session.commit()
            return await raw_readings(factory)
        finally:
            await engine.dispose()

    readings = asyncio.run(store_directly())
    done = subprocess.run(
        [sys.executable, "-m", "bot", "rollups", "--farm", FARM],
        capture_output=True, text=True, check=True, timeout=120,
        env={**os.environ, "STEPAN_DATABASE_URL": sqlite_url},
    )  # fmt: skip
    expected = independent_hours(readings)
    assert (
        done.stdout.strip()
        == f"stepan: {len(expected)} hourly sensor rollup rows rebuilt (farm {FARM})"
    )

    async def hours() -> Hours:
        engine = create_engine(sqlite_url)
        try:
            return await stored_hours(create_session_factory(engine))
        finally:
            await engine.dispose()

    assert_same(asyncio.run(hours()), expected)
