"""Charts from readings aggregated in the database (SQLite and PostgreSQL)."""

from __future__ import annotations

import struct
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine, create_session_factory
from db.models import FarmProfileRow, FieldRow, SensorReadingRow, UserProfileRow
from db.repositories import sensor_rollups
from db.uow import Database
from pipeline.farm.reports.chart_window import ChartWindow, window_of
from pipeline.farm.reports.charts import sensor_chart
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.farm.sensors.series import DAY, field_totals, read_series
from pipeline.farm.words.dates import Period
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts

FARM = "farm:charts"
OTHER = "farm:other"
KYIV = ZoneInfo("Europe/Kyiv")
TYPES = SensorTypes.load()
CATALOG = Catalog.load()
NORTH, SOUTH = "field:north", "field:south"
# Local midnight of 1 October 2026 in Kyiv (UTC+3 in summer time).
OCT_1 = datetime(2026, 9, 30, 21, 0, tzinfo=UTC)


def reading(
    at: datetime,
    value: float,
    *,
    sensor: str = "soil-n1",
    field: str | None = NORTH,
    kind: str = "soil_moisture",
    farm: str = FARM,
) -> SensorReadingRow:
    return SensorReadingRow(
        farm_id=farm,
        field_id=field,
        sensor_id=sensor,
        sensor_type=kind,
        value=value,
        unit=TYPES.types[kind].unit,
        measured_at=at,
        source="api",
    )


async def add_farm(
    factory: async_sessionmaker[AsyncSession], fields: dict[str, str] | None = None
) -> None:
    async with factory() as session:
        for farm, user in ((FARM, "tg:1"), (OTHER, "tg:2")):
            session.add(UserProfileRow(user_id=user))
            await session.flush()
            session.add(FarmProfileRow(farm_id=farm, user_id=user))
            await session.flush()
        names = fields if fields is not None else {NORTH: "Північне", SOUTH: "Південне"}
        session.add_all(FieldRow(farm_id=FARM, field_id=f, name=n) for f, n in names.items())
        await session.commit()


async def put(factory: async_sessionmaker[AsyncSession], rows: list[SensorReadingRow]) -> None:
    """Readings stored directly (not through the ingest), then their hourly rollups."""
    async with factory() as session:
        session.add_all(rows)
        await session.flush()
        await sensor_rollups.rebuild(session)
        await session.commit()


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def october(days: int = 31) -> ChartWindow:
    now = datetime(2026, 11, 20, tzinfo=UTC)
    period = Period(date(2026, 10, 1), date(2026, 10, days), "range")
    return window_of(period, days=7, now=now, zone=KYIV)


# --- Buckets --------------------------------------------------------------------------


async def check_buckets(db: Database, factory: async_sessionmaker[AsyncSession]) -> None:
    """Hourly readings of two fields over three days, in daily and 6-hour buckets,
    with min / mean / max per bucket; another farm's readings never count."""
    await add_farm(factory)
    rows = []
    for hour in range(72):
        at = OCT_1 + timedelta(hours=hour)
        rows.append(reading(at, float(hour), sensor="soil-n1"))
        rows.append(reading(at, 100.0, sensor="soil-n2"))  # a second probe of the field
        rows.append(reading(at, 40.0, sensor="soil-s1", field=SOUTH))
        rows.append(reading(at, 1.0, sensor="soil-x", farm=OTHER))
    await put(factory, rows)
    since, until = OCT_1, OCT_1 + timedelta(days=3)
    daily = await read_series(
        db, FARM, "soil_moisture", since=since, until=until, width=DAY, zone=KYIV
    )
    by_field = {series.field_id: series for series in daily}
    assert set(by_field) == {NORTH, SOUTH}
    north = by_field[NORTH].points
    # Days start at local midnight: 1, 2 and 3 October.
    assert [p.start for p in north] == [datetime(2026, 10, d) for d in (1, 2, 3)]
    assert [p.count for p in north] == [48, 48, 48]
    assert (north[0].minimum, north[0].maximum) == (0.0, 100.0)
    assert north[0].mean == pytest.approx((sum(range(24)) + 100 * 24) / 48)
    assert by_field[SOUTH].points[2].mean == 40.0
    six_hours = await read_series(
        db,
        FARM,
        "soil_moisture",
        since=since,
        until=until,
        width=6 * 3600,
        zone=KYIV,
        field_id=SOUTH,
    )
    assert [len(series.points) for series in six_hours] == [12]
    assert six_hours[0].readings == 72


async def test_buckets_on_sqlite(db: Database, session_factory: async_sessionmaker) -> None:
    await check_buckets(db, session_factory)


@pytest.mark.postgres
async def test_buckets_on_postgres(migrated_postgres_url: str) -> None:
    engine = create_engine(migrated_postgres_url)
    try:
        await check_buckets(Database.of(engine), create_session_factory(engine))
    finally:
        await engine.dispose()


async def test_a_day_of_the_clock_change_is_one_bucket(
    db: Database, session_factory: async_sessionmaker
) -> None:
    """Kyiv leaves summer time on 25 October 2026 (03:00 +03 -> 02:00 +02): that day
    has 25 hours, and its readings still form one day bucket, split nowhere."""
    await add_farm(session_factory)
    day_start = datetime(2026, 10, 24, 21, 0, tzinfo=UTC)  # local midnight, +03
    next_day = datetime(2026, 10, 25, 22, 0, tzinfo=UTC)  # local midnight, +02
    hours = int((next_day - day_start).total_seconds() // 3600)
    assert hours == 25
    await put(
        session_factory,
        [reading(day_start + timedelta(hours=h), 10.0) for h in range(hours + 24)],
    )
    series = await read_series(
        db,
        FARM,
        "soil_moisture",
        since=day_start,
        until=next_day + timedelta(days=1),
        width=DAY,
        zone=KYIV,
    )
    assert [(p.start.day, p.count) for p in series[0].points] == [(25, 25), (26, 24)]


async def test_rainfall_is_daily_totals_per_field(
    db: Database, session_factory: async_sessionmaker
) -> None:
    """Two gauges on one field measure the same rain: the field's day is their mean
    total, not the sum of both."""
    await add_farm(session_factory)
    rows = []
    for hour in range(48):
        at = OCT_1 + timedelta(hours=hour)
        rows.append(reading(at, 0.5, sensor="rain-1", kind="rainfall"))
        rows.append(reading(at, 1.0, sensor="rain-2", kind="rainfall"))
    await put(session_factory, rows)
    per_probe = await read_series(
        db,
        FARM,
        "rainfall",
        since=OCT_1,
        until=OCT_1 + timedelta(days=2),
        width=DAY,
        zone=KYIV,
        by_sensor=True,
    )
    totals = field_totals(per_probe)
    assert [(p.total, p.minimum, p.maximum) for p in totals[0].points] == [(18.0, 12.0, 24.0)] * 2


# --- Charts ----------------------------------------------------------------------------


async def test_a_90_day_chart_loads_buckets_not_readings(
    db: Database, session_factory: async_sessionmaker
) -> None:
    await add_farm(session_factory)
    start = datetime(2026, 8, 1, tzinfo=UTC)
    rows = [
        reading(start + timedelta(minutes=30 * i), 20.0 + i % 7, sensor=f"p{i % 3}")
        for i in range(90 * 48)
    ]
    await put(session_factory, rows)
    now = start + timedelta(days=90)
    window = window_of(None, days=90, now=now, zone=KYIV)
    chart = await sensor_chart(
        db, FARM, TYPES.types["soil_moisture"], window, zone=KYIV, texts=Texts(CATALOG, "uk")
    )
    assert chart is not None
    assert png_size(chart.png) == (1200, 600)
    inside = [row for row in rows if window.since <= row.measured_at < window.until]
    assert 4_000 < chart.readings == len(inside)
    assert chart.points <= 1_000
    assert chart.lines == 1
    assert chart.filename == f"stepan_soil-moisture_{window.start}_{window.end}.png"


async def test_the_chart_covers_the_named_month_only(
    db: Database, session_factory: async_sessionmaker
) -> None:
    await add_farm(session_factory)
    rows = [
        reading(OCT_1 + timedelta(hours=h), 30.0) for h in range(-24, 31 * 24 + 24)
    ]  # the last day of September to the first of November
    await put(session_factory, rows)
    chart = await sensor_chart(
        db, FARM, TYPES.types["soil_moisture"], october(), zone=KYIV, texts=Texts(CATALOG, "uk")
    )
    assert chart is not None
    # Local October: 1 October 00:00 +03 to 1 November 00:00 +02, 745 hours long.
    assert chart.readings == 31 * 24 + 1


async def test_rain_bars_and_many_fields(db: Database, session_factory: async_sessionmaker) -> None:
    names = {f"field:{n}": f"Поле {n}" for n in range(1, 16)}
    await add_farm(session_factory, names)
    rows = [
        reading(
            OCT_1 + timedelta(hours=h), 0.2, sensor=f"g{n}", field=f"field:{n}", kind="rainfall"
        )
        for n in range(1, 16)
        for h in range(0, 10 * 24, 3)
    ]
    await put(session_factory, rows)
    chart = await sensor_chart(
        db, FARM, TYPES.types["rainfall"], october(10), zone=KYIV, texts=Texts(CATALOG, "en")
    )
    assert chart is not None
    assert png_size(chart.png) == (1200, 600)
    assert (chart.lines, chart.points) == (15, 15 * 10)  # a bar per field per day


async def test_no_chart_without_data(db: Database, session_factory: async_sessionmaker) -> None:
    await add_farm(session_factory)
    await put(session_factory, [reading(OCT_1 + timedelta(hours=1), 30.0)])
    soil = TYPES.types["soil_moisture"]
    rain = TYPES.types["rainfall"]
    assert (
        await sensor_chart(db, FARM, rain, october(), zone=KYIV, texts=Texts(CATALOG, "uk")) is None
    )
    assert (
        await sensor_chart(db, OTHER, soil, october(), zone=KYIV, texts=Texts(CATALOG, "uk"))
        is None
    )
    future = window_of(
        Period(date(2026, 12, 1), date(2026, 12, 31), "month"),
        days=7,
        now=datetime(2026, 11, 20, tzinfo=UTC),
        zone=KYIV,
    )
    assert future.empty
    assert await sensor_chart(db, FARM, soil, future, zone=KYIV, texts=Texts(CATALOG, "uk")) is None
