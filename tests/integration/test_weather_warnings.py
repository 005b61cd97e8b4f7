"""Frost warnings Stepan writes first (docs/weather.md): after the hourly refresh,
an active farm with a frost in the next two days is told once per local day, in its
farmer's language and on the farm's clock; a failed send is tried again next run,
a farmer who blocked the bot is not."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import update
from timezonefinder import TimezoneFinder

from bot.wiring.scheduler import JobRunner, default_jobs
from db.models import UserProfileRow
from db.repositories import places as places_repo
from db.uow import Database
from pipeline.farm.sensors.alerts import RecipientGone
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.weather.client import OpenMeteo
from pipeline.weather.geo import Locator, Point
from pipeline.weather.service import Forecasts
from pipeline.weather.warnings import FrostWarnings
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.shared import rulebook

NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)  # Thursday, 12:30 in Kyiv
KYIV = ZoneInfo("Europe/Kyiv")
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
    warnings = FrostWarnings(db, forecasts, catalog, outbox.send, clock=lambda: NOW)
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
    assert (first.sent, first.failed, again.sent) == (2, 0, 0)
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
        assert (await warnings.run()).sent == 0
    async with FakeOpenMeteo(now=NOW, weather=frost_on_friday) as fake:
        forecasts, warnings, outbox = _world(db, fake, http, catalog)
        await Forecasts(
            db, OpenMeteo(http, fake.base_url), LOCATOR, clock=lambda: NOW + timedelta(hours=1)
        ).refresh()
        outbox.fail_with = RuntimeError("Telegram is down")
        assert (await warnings.run()).failed == 1
        outbox.fail_with = None
        assert (await warnings.run()).sent == 1
    assert len(outbox.sent) == 1


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
        assert (await warnings.run()).sent == 0


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
