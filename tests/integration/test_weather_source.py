"""The forecast source and its cache (docs/weather.md) against the fake Open-Meteo
over real HTTP: the client reads the documented answers and refuses everything else
as unavailable; the hourly job fetches the active farms' locations several per
request, once across instances; a chat reads the cache, or at most one live fetch
behind the breaker; the key never reaches a log line."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update
from timezonefinder import TimezoneFinder

from bot.log_secrets import SecretMaskFilter
from bot.wiring.scheduler import JobRunner, default_jobs
from db.engine import create_engine
from db.models import UserProfileRow
from db.repositories import farm as farm_repo
from db.repositories import places as places_repo
from db.uow import Database
from pipeline.memory import Memory, build_memory
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.weather.client import OpenMeteo, WeatherUnavailable
from pipeline.weather.geo import Locator, Point, cell_of
from pipeline.weather.service import Forecasts
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.shared import rulebook

NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)
LOCATOR = Locator(TimezoneFinder(), rulebook().knowledge.data.regions)
POLTAVA = Point(49.5883, 34.5514)
ODESA = Point(46.4825, 30.7233)


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo(now=NOW) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def _forecasts(
    db: Database, fake: FakeOpenMeteo, http: httpx.AsyncClient, **kw: object
) -> Forecasts:
    source = OpenMeteo(http, fake.base_url, kw.pop("key", None))  # type: ignore[arg-type]
    return Forecasts(db, source, LOCATOR, clock=lambda: NOW, **kw)  # type: ignore[arg-type]


async def _active_farm(db: Database, memory: Memory, user: str, point: Point | None,
                       region: str | None = None) -> str:  # fmt: skip
    farm_id = await memory.editor.ensure_farm(user)
    assert farm_id is not None
    async with db.write() as session:
        await session.execute(
            update(UserProfileRow)
            .where(UserProfileRow.user_id == user)
            .values(last_seen=NOW - timedelta(days=2), active=True)
        )
        if point is not None:
            await places_repo.set_farm_point(
                session, farm_id, point.latitude, point.longitude, timezone=None, region=None
            )
        if region is not None:
            await farm_repo.set_region(session, farm_id, region)
    return farm_id


async def test_the_client_reads_hours_in_utc_and_a_missing_variable_is_none(
    fake: FakeOpenMeteo, http: httpx.AsyncClient
) -> None:
    source = OpenMeteo(http, fake.base_url)
    [forecast] = await source.fetch([cell_of(POLTAVA)], limit_s=5)
    assert forecast.cell == (4960, 3455)
    assert len(forecast.hours) == (1 + 7) * 24
    first = forecast.hours[0]
    assert first.hour == datetime(2026, 5, 13, tzinfo=UTC)
    assert first.temperature is not None and first.wind_speed == pytest.approx(3.0)
    query = fake.requests[-1]
    assert query["latitude"] == "49.60" and query["longitude"] == "34.55"
    assert query["timezone"] == "GMT" and query["wind_speed_unit"] == "ms"
    assert query["hourly"].split(",") == [
        "temperature_2m", "relative_humidity_2m", "precipitation",
        "precipitation_probability", "wind_speed_10m", "soil_temperature_6cm",
    ]  # fmt: skip
    assert "apikey" not in query
    fake.set_mode("missing")
    [again] = await source.fetch([cell_of(POLTAVA)], limit_s=5)
    assert again.hours[0].soil_temperature is None and again.hours[0].temperature is not None


@pytest.mark.parametrize("mode", ["html502", "garbage", "wrong_shape", "hanging"])
async def test_a_broken_source_is_unavailable_never_numbers(
    fake: FakeOpenMeteo, http: httpx.AsyncClient, mode: str
) -> None:
    fake.set_mode(mode)  # type: ignore[arg-type]
    source = OpenMeteo(http, fake.base_url)
    with pytest.raises(WeatherUnavailable):
        await source.fetch([cell_of(POLTAVA), cell_of(ODESA)], limit_s=0.5)
    fake.set_mode("healthy")


async def test_a_refusal_names_the_reason_and_the_key_is_never_logged(
    http: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(SecretMaskFilter())
    caplog.set_level(logging.INFO)
    async with FakeOpenMeteo(now=NOW, api_key="right-key-123") as fake:
        wrong = OpenMeteo(http, fake.base_url, "wrong-key-456")
        with pytest.raises(WeatherUnavailable, match="The supplied API key is invalid"):
            await wrong.fetch([cell_of(POLTAVA)], limit_s=5)
        right = OpenMeteo(http, fake.base_url, "right-key-123")
        assert len(await right.fetch([cell_of(POLTAVA)], limit_s=5)) == 1
        assert fake.requests[-1]["apikey"] == "right-key-123"
    assert "apikey=***" in caplog.text  # httpx logged the URL, masked
    assert "right-key-123" not in caplog.text and "wrong-key-456" not in caplog.text


async def test_the_job_fetches_active_locations_together_and_not_twice(
    db: Database, memory: Memory, fake: FakeOpenMeteo, http: httpx.AsyncClient
) -> None:
    poltava = await _active_farm(db, memory, "tg:1", POLTAVA)
    await _active_farm(db, memory, "tg:2", None, region="odesa")  # no point: its oblast's centre
    await _active_farm(db, memory, "tg:3", None)  # nothing known: nothing fetched
    async with db.write() as session:
        await farm_repo.add_field(session, poltava, "field:far", "Дальнє")
        [field] = (await places_repo.farm_place(session, "tg:1")).fields  # type: ignore[union-attr]
        await places_repo.set_field_point(session, poltava, field.row_id, 49.9, 34.0)
    forecasts = _forecasts(db, fake, http)
    result = await forecasts.refresh()
    assert (result.cells, result.fetched, result.requests, result.failed) == (3, 3, 1, 0)
    [query] = fake.requests
    assert len(query["latitude"].split(",")) == 3
    # Within the hour nothing is fetched again, by this instance or another one.
    again = await forecasts.refresh()
    assert (again.fetched, again.requests) == (0, 0) and len(fake.requests) == 1
    start = NOW.replace(minute=0)
    hours = await forecasts.hours(POLTAVA, start, start + timedelta(hours=24))
    assert len(hours) == 24 and len(fake.requests) == 1  # read from the cache


async def test_two_instances_run_the_job_once_per_slot(
    db: Database, memory: Memory, fake: FakeOpenMeteo, http: httpx.AsyncClient
) -> None:
    await _active_farm(db, memory, "tg:1", POLTAVA)
    # Both fire at the same trigger time; the second finds the slot claimed.
    forecasts = _forecasts(db, fake, http)
    [job] = [
        spec
        for spec in default_jobs(db, sweep=None, cache=None, sync=None, forecasts=forecasts)  # type: ignore[arg-type]
        if spec.job_id == "weather_refresh"
    ]
    outcomes = [await JobRunner(db, owner, clock=lambda: NOW).run(job) for owner in ("a:1", "b:2")]
    assert sorted(outcomes) == ["ok", "skipped"]
    assert len(fake.requests) == 1


async def test_a_chat_fetches_live_once_and_the_breaker_spares_the_next(
    db: Database, fake: FakeOpenMeteo, http: httpx.AsyncClient
) -> None:
    breaker = CircuitBreaker(failure_threshold=1, cooldown_s=3600, name="weather")
    forecasts = _forecasts(db, fake, http, breaker=breaker, chat_limit_s=0.3)
    start = NOW.replace(minute=0)
    end = start + timedelta(hours=48)
    fake.set_mode("hanging")
    assert await forecasts.hours(ODESA, start, end) == []
    assert breaker.state == "open" and len(fake.requests) == 1
    # Open: the next question does not wait on the source at all.
    assert await forecasts.hours(ODESA, start, end) == []
    assert len(fake.requests) == 1
    fake.set_mode("healthy")
    breaker.record_success()
    assert len(await forecasts.hours(ODESA, start, end)) == 48
    assert len(fake.requests) == 2


@pytest.mark.postgres
async def test_the_cache_and_the_points_on_postgresql(
    migrated_postgres_url: str, fake: FakeOpenMeteo, http: httpx.AsyncClient
) -> None:
    engine = create_engine(migrated_postgres_url)
    try:
        db = Database.of(engine)
        memory = build_memory(db)
        await _active_farm(db, memory, "tg:1", POLTAVA)
        await _active_farm(db, memory, "tg:2", None, region="odesa")
        forecasts = _forecasts(db, fake, http)
        first = await forecasts.refresh()
        assert (first.cells, first.fetched, first.requests) == (2, 2, 1)
        # A second fetch of the same hours replaces them (the upsert), none doubled.
        source = OpenMeteo(http, fake.base_url)
        later = Forecasts(db, source, LOCATOR, clock=lambda: NOW + timedelta(hours=2))
        assert (await later.refresh()).fetched == 2
        start = NOW.replace(minute=0)
        hours = await forecasts.hours(POLTAVA, start, start + timedelta(hours=24))
        assert len(hours) == 24 and len({h.hour for h in hours}) == 24
        async with db.read() as session:
            place = await places_repo.farm_place(session, "tg:1")
        assert place is not None and (place.latitude, place.longitude) == (
            POLTAVA.latitude,
            POLTAVA.longitude,
        )
    finally:
        await engine.dispose()
