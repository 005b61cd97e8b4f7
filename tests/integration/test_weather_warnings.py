"""Frost warnings Stepan writes first (docs/weather.md): after the hourly refresh,
an active farm with a frost in the next two days is told once per local day, in its
farmer's language and on the farm's clock; a failed send is tried again next run,
a farmer who blocked the bot is not."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import update
from timezonefinder import TimezoneFinder

from bot.wiring.scheduler import JobRunner, default_jobs
from db.models import FieldRow, OperationRow, UserProfileRow
from db.repositories import places as places_repo
from db.uow import Database
from pipeline.farm.sensors.alerts import RecipientGone
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.weather.client import OpenMeteo
from pipeline.weather.geo import Locator, Point
from pipeline.weather.service import Forecasts
from pipeline.weather.warning_rules import WarningRules
from pipeline.weather.warnings import WeatherWarnings
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.shared import rulebook

NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)  # Thursday, 12:30 in Kyiv
KYIV = ZoneInfo("Europe/Kyiv")
RULES = WarningRules.load()
LOCATOR = Locator(TimezoneFinder(), rulebook().knowledge.data.regions)
FARM = Point(49.5883, 34.5514)


def frost_on_friday(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    local = hour.astimezone(KYIV)
    return {"temperature_2m": -2.5 if (local.day, local.hour) == (15, 4) else 9.0}


def mild(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    return {"temperature_2m": 9.0}


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []
        self.fail_with: Exception | None = None

    async def send(self, chat: int, text: str) -> None:
        if self.fail_with is not None:
            raise self.fail_with
        self.sent.append((chat, text))


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


async def _farmer(db: Database, memory: Memory, user: str, language: str = "uk") -> None:
    farm_id = await memory.editor.ensure_farm(user)
    assert farm_id is not None
    async with db.write() as session:
        await session.execute(
            update(UserProfileRow)
            .where(UserProfileRow.user_id == user)
            .values(last_seen=NOW - timedelta(days=1), preferred_language=language)
        )
        await places_repo.set_farm_point(
            session, farm_id, FARM.latitude, FARM.longitude, timezone=None, region=None
        )


def _world(db: Database, fake: FakeOpenMeteo, http: httpx.AsyncClient, catalog: Catalog):  # type: ignore[no-untyped-def]
    forecasts = Forecasts(db, OpenMeteo(http, fake.base_url), LOCATOR, clock=lambda: NOW)
    outbox = Outbox()
    warnings = WeatherWarnings(db, forecasts, catalog, outbox.send, RULES, clock=lambda: NOW)
    return forecasts, warnings, outbox


async def test_a_frost_is_told_once_in_the_farmers_language(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    await _farmer(db, memory, "tg:202", language="en")
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await forecasts.refresh()
        first = await warnings.run()
        again = await warnings.run()
    assert (first.total, first.failed, again.total) == (2, 0, 0)
    assert sorted(outbox.sent) == [
        (101, "❄️ За прогнозом заморозок: пт 15.05 до -2,5 °C близько 04:00. Якщо є сходи чи"
              " цвіт, що бояться холоду, — подбайте про захист (полив напередодні, димлення,"
              " укриття) і не обприскуйте перед заморозком."),
        (202, "❄️ Frost in the forecast: Fri 15.05 down to -2.5 °C around 04:00. If you have"
              " seedlings or blossom that fear the cold, protect them (water the day before,"
              " smoke, cover) and don't spray just before the frost."),
    ]  # fmt: skip


async def test_no_frost_no_message_and_a_failed_send_is_tried_again(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    async with FakeOpenMeteo(now=NOW, weather=mild) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await forecasts.refresh()
        assert (await warnings.run()).total == 0
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await Forecasts(
            db, OpenMeteo(http, fake.base_url), LOCATOR, clock=lambda: NOW + timedelta(hours=1)
        ).refresh()
        outbox.fail_with = RuntimeError("Telegram is down")
        assert (await warnings.run()).failed == 1
        outbox.fail_with = None
        assert (await warnings.run()).total == 1
    assert len(outbox.sent) == 1


async def test_a_farmer_who_turned_warnings_off_in_me_gets_none(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    await _farmer(db, memory, "tg:202")
    assert await memory.editor.set_weather_warnings("tg:101", False)
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await forecasts.refresh()
        assert (await warnings.run()).total == 1
        assert [chat for chat, _ in outbox.sent] == [202]
        # Turned back on: the frost still ahead is told now.
        assert await memory.editor.set_weather_warnings("tg:101", True)
        assert (await warnings.run()).total == 1
    assert [chat for chat, _ in outbox.sent] == [202, 101]


async def test_a_farmer_who_blocked_the_bot_is_not_tried_again(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await forecasts.refresh()
        outbox.fail_with = RecipientGone("Forbidden: bot was blocked by the user")
        assert (await warnings.run()).failed == 1
        outbox.fail_with = None
        assert (await warnings.run()).total == 0


async def test_the_hourly_job_refreshes_then_warns(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        specs = default_jobs(db, sweep=None, cache=None, sync=None, forecasts=forecasts,  # type: ignore[arg-type]
                             warnings=warnings)  # fmt: skip
        [job] = [spec for spec in specs if spec.job_id == "weather_refresh"]
        assert await JobRunner(db, "a:1", clock=lambda: NOW).run(job) == "ok"
    assert len(outbox.sent) == 1


# --- when a hazard is worth a message (rules/weather_warnings.toml) -----------------


def _at(
    now: datetime, db: Database, fake: FakeOpenMeteo, http: httpx.AsyncClient, catalog: Catalog
):  # type: ignore[no-untyped-def]
    forecasts = Forecasts(db, OpenMeteo(http, fake.base_url), LOCATOR, clock=lambda: now)
    outbox = Outbox()
    return (
        forecasts,
        WeatherWarnings(db, forecasts, catalog, outbox.send, RULES, clock=lambda: now),
        outbox,
    )


def frost_next_night(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    """Every night at 04:00 Kyiv time -3 °C, days at 5 °C."""
    return {"temperature_2m": -3.0 if hour.astimezone(KYIV).hour == 4 else 5.0}


async def _farm_of(memory: Memory, user: str) -> str:
    farm_id = await memory.editor.ensure_farm(user)
    assert farm_id is not None
    return farm_id


async def _journal(db: Database, farm_id: str, *rows: OperationRow) -> None:
    async with db.write() as session:
        session.add(FieldRow(farm_id=farm_id, field_id="field:kurhan", name="Курган"))
        for row in rows:
            session.add(row)


def _entry(farm_id: str, op_type: str, day: date, status: str) -> OperationRow:
    return OperationRow(
        farm_id=farm_id, op_type=op_type, field_id="field:kurhan", op_date=day,
        status=status, author="tg:101",
    )  # fmt: skip


async def _warned(
    db: Database, http: httpx.AsyncClient, catalog: Catalog, now: datetime, weather: Any
) -> list[str]:
    async with FakeOpenMeteo(now=now, weather=weather) as fake:
        forecasts, warnings, outbox = _at(now, db, fake, http, catalog)
        await forecasts.refresh()
        await warnings.run()
    return [text for _, text in outbox.sent]


async def test_a_december_frost_is_no_news_unless_something_was_sown(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    december = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)  # 11:00 in Kyiv
    await _farmer(db, memory, "tg:101")
    await _farmer(db, memory, "tg:202")
    async with db.write() as session:
        await session.execute(
            update(UserProfileRow).values(last_seen=december - timedelta(hours=2))
        )
    assert await _warned(db, http, catalog, december, frost_next_night) == []
    # A sowing recorded three weeks ago: the frost can harm what came up.
    farm_id = await _farm_of(memory, "tg:202")
    await _journal(db, farm_id, _entry(farm_id, "sowing", date(2026, 11, 11), "done"))
    [told] = await _warned(db, http, catalog, december + timedelta(hours=1), frost_next_night)
    assert told.startswith("❄️")


async def test_no_warning_at_night_and_one_per_episode(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    night = datetime(2026, 5, 13, 20, 30, tzinfo=UTC)  # 23:30 in Kyiv
    await _farmer(db, memory, "tg:101")
    assert await _warned(db, http, catalog, night, frost_next_night) == []
    morning = night + timedelta(hours=8)  # 07:30, the night's frost is past
    [told] = await _warned(db, http, catalog, morning, frost_next_night)
    assert "пт 15.05" in told
    # The next nights freeze too: the same episode, not a message a day.
    for days in (1, 2):
        assert (
            await _warned(db, http, catalog, morning + timedelta(days=days), frost_next_night) == []
        )


def rain_on_friday(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    local = hour.astimezone(KYIV)
    wet = local.day == 15 and 10 <= local.hour < 17
    return {"temperature_2m": 18.0, "precipitation": 2.0 if wet else 0.0}


async def test_heavy_rain_on_a_planned_spraying_is_told_with_the_field(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    assert await _warned(db, http, catalog, NOW, rain_on_friday) == []  # nothing planned
    farm_id = await _farm_of(memory, "tg:101")
    await _journal(db, farm_id, _entry(farm_id, "spraying", date(2026, 5, 15), "planned"))
    [told] = await _warned(db, http, catalog, NOW + timedelta(hours=1), rain_on_friday)
    assert told == catalog.text(
        "uk", "forecast.rain_spray_warning", day="пт 15.05", mm="14",
        where=catalog.text("uk", "forecast.on_field", name="Курган"),
    )  # fmt: skip


def heat_on_saturday(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    local = hour.astimezone(KYIV)
    return {"temperature_2m": 34.5 if (local.day, local.hour) == (16, 15) else 24.0}


async def test_a_heat_day_is_told_once(
    db: Database, memory: Memory, http: httpx.AsyncClient, catalog: Catalog
) -> None:
    await _farmer(db, memory, "tg:101")
    [told] = await _warned(db, http, catalog, NOW, heat_on_saturday)
    assert told.startswith("🌡") and "сб 16.05" in told and "34,5 °C" in told and "15:00" in told
    assert await _warned(db, http, catalog, NOW + timedelta(hours=1), heat_on_saturday) == []
