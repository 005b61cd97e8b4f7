"""Weather answers through the whole pipeline (docs/weather.md): the forecast comes
from the fake Open-Meteo over real HTTP into the cache (the hourly job), and
«яка погода завтра», «чи буде дощ на вихідних», «будуть заморозки?» are answered from
it for the farm or a named field, on the farm's clock, a day a line, with the decimal
comma. With no forecast the answer says so and holds no number."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import update
from timezonefinder import TimezoneFinder

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.models import UserProfileRow
from db.repositories import farm as farm_repo
from db.repositories import places as places_repo
from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming
from pipeline.weather.client import OpenMeteo
from pipeline.weather.geo import Locator, Point
from pipeline.weather.service import Forecasts
from tests.fakes.open_meteo import FakeOpenMeteo

#: Thursday 14 May 2026, 12:30 in Kyiv.
NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)
KYIV = ZoneInfo("Europe/Kyiv")
USER = "tg:4242"
FARM = Point(49.5883, 34.5514)
NORTH = Point(50.05, 33.9)


def may_weather(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    """Nights 8 °C, days 18 °C; rain on Saturday 16 May from noon to 18:00 (0,5 mm an
    hour); a frost of -1,5 °C at 04:00 on Tuesday 19 May; 3 m/s of wind (10,8 km/h).
    The soil at 6 cm: 6 °C on Thursday, 7…9 °C on Friday, 9…11 °C from Saturday.
    The field ``NORTH`` is 2 °C warmer."""
    local = hour.astimezone(KYIV)
    temperature = 8.0 if local.hour < 12 else 18.0
    if (local.day, local.hour) == (19, 4):
        temperature = -1.5
    if lat > 50:
        temperature += 2
    rain = 0.5 if local.day == 16 and 12 <= local.hour < 18 else 0.0
    afternoon = 2.0 if local.hour >= 12 else 0.0
    soil = {14: 6.0, 15: 7.0 + afternoon}.get(local.day, 9.0 + afternoon)
    return {
        "soil_temperature_6cm": soil,
        "temperature_2m": temperature,
        "relative_humidity_2m": 60.0,
        "precipitation": rain,
        "precipitation_probability": 80.0 if rain else 10.0,
        "wind_speed_10m": 10.8,
    }


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo(now=NOW, weather=may_weather) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def forecasts(
    db: Database, fake: FakeOpenMeteo, http: httpx.AsyncClient, rules: Rulebook
) -> Forecasts:
    locator = Locator(TimezoneFinder(), rules.knowledge.data.regions)
    source = OpenMeteo(http, fake.base_url)
    breaker = CircuitBreaker(failure_threshold=1, cooldown_s=3600, name="weather")
    return Forecasts(db, source, locator, clock=lambda: NOW, breaker=breaker, chat_limit_s=0.5)


@pytest.fixture
def weather_pipeline(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook, memory: Memory,
    forecasts: Forecasts,
) -> Pipeline:  # fmt: skip
    return build_pipeline(
        settings, db, catalog, memory=memory, rules=rules, clock=lambda: NOW, forecasts=forecasts
    )


async def _farm(
    db: Database, memory: Memory, point: Point | None, region: str | None = None
) -> None:
    farm_id = await memory.editor.ensure_farm(USER)
    assert farm_id is not None
    async with db.write() as session:
        # Seen this week: an active farm, refreshed by the job.
        await session.execute(
            update(UserProfileRow)
            .where(UserProfileRow.user_id == USER)
            .values(last_seen=NOW - timedelta(days=1))
        )
        await farm_repo.add_field(session, farm_id, "field:north", "Північне")
        await farm_repo.add_field(session, farm_id, "field:pond", "За ставком")
        if point is not None:
            await places_repo.set_farm_point(
                session, farm_id, point.latitude, point.longitude, timezone=None, region=None
            )
        if region is not None:
            await farm_repo.set_region(session, farm_id, region)
        place = await places_repo.farm_place(session, USER)
        assert place is not None
        north = next(item for item in place.fields if item.name == "Північне")
        await places_repo.set_field_point(
            session, farm_id, north.row_id, NORTH.latitude, NORTH.longitude
        )


async def _ask(pipeline: Pipeline, text: str, lang: str = "uk") -> str:
    incoming = Incoming(USER, 4242, text, uuid.uuid4().hex[:16], "Оксана", lang)
    reply = await pipeline.handle_message(incoming)
    return reply.text


async def test_tomorrow_for_the_farm_from_the_cache(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts,
    fake: FakeOpenMeteo,
) -> None:  # fmt: skip
    await _farm(db, memory, FARM)
    assert (await forecasts.refresh()).requests == 1
    asked = len(fake.requests)
    text = await _ask(weather_pipeline, "яка погода завтра")
    assert text == (
        "🌦 Прогноз для вашої ферми:\n"
        "пт 15.05: 8…18 °C, без опадів, вітер до 3 м/с\n"
        "Джерело: Open-Meteo."
    )
    assert len(fake.requests) == asked  # the answer read the cache


async def test_yesterday_from_the_cache_and_earlier_is_not_guessed(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts
) -> None:
    await _farm(db, memory, FARM)
    await forecasts.refresh()
    assert (await _ask(weather_pipeline, "яка погода була вчора")).splitlines()[1] == (
        "ср 13.05: 8…18 °C, без опадів, вітер до 3 м/с"
    )
    assert (await _ask(weather_pipeline, "яка погода була позавчора")).startswith(
        "Погоду минулих днів, крім учорашньої, я не зберігаю"
    )


async def test_rain_at_the_weekend_and_frost_in_the_week(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts
) -> None:
    await _farm(db, memory, FARM)
    await forecasts.refresh()
    assert await _ask(weather_pipeline, "чи буде дощ на вихідних?") == (
        "🌦 Прогноз для вашої ферми:\n"
        "Так, дощ імовірний: сб 16.05.\n"
        "сб 16.05: опади 3 мм (імовірність 80 %)\n"
        "нд 17.05: без опадів\n"
        "Джерело: Open-Meteo."
    )
    assert await _ask(weather_pipeline, "будуть заморозки?") == (
        "🌦 Прогноз для вашої ферми:\n"
        "Так, можливі заморозки:\n"
        "вт 19.05: до -1,5 °C близько 04:00\n"
        "Джерело: Open-Meteo."
    )


async def test_a_named_field_gets_its_own_point_and_another_the_farms(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts
) -> None:
    await _farm(db, memory, FARM)
    await forecasts.refresh()
    north = await _ask(weather_pipeline, "яка погода завтра на Північному?")
    assert north.splitlines()[:2] == [
        "🌦 Прогноз для поля «Північне»:",
        "пт 15.05: 10…20 °C, без опадів, вітер до 3 м/с",
    ]
    pond = await _ask(weather_pipeline, "яка погода завтра за ставком")
    assert pond.splitlines()[0].startswith("🌦 Прогноз для поля «За ставком» (за точкою ферми")
    assert pond.splitlines()[1] == "пт 15.05: 8…18 °C, без опадів, вітер до 3 м/с"


async def test_english_and_the_oblast_centre_for_a_farm_without_a_point(
    weather_pipeline: Pipeline, db: Database, memory: Memory, fake: FakeOpenMeteo
) -> None:
    await _farm(db, memory, None, region="poltava")
    # Nothing cached yet: one live fetch, for the oblast's centre.
    text = await _ask(weather_pipeline, "what's the weather tomorrow", "en")
    assert text.splitlines() == [
        "🌦 Forecast for the centre of Poltava oblast — send your farm's location"
        " (📎 → Location) for a closer one:",
        "Fri 15.05: 8…18 °C, no rain, wind up to 3 m/s",
        "Source: Open-Meteo.",
    ]
    [query] = fake.requests
    assert (query["latitude"], query["longitude"]) == ("49.60", "33.70")


async def test_no_forecast_is_said_and_no_number_is_made_up(
    weather_pipeline: Pipeline, db: Database, memory: Memory, fake: FakeOpenMeteo
) -> None:
    await _farm(db, memory, FARM)
    fake.set_mode("html502")
    text = await _ask(weather_pipeline, "яка погода завтра")
    assert text.startswith("Прогноз зараз недоступний")
    assert not re.search(r"\d", text)
    # The breaker is open now: the next question does not even try the source.
    fake.set_mode("healthy")
    asked = len(fake.requests)
    assert (await _ask(weather_pipeline, "чи буде дощ завтра")).startswith(
        "Прогноз зараз недоступний"
    )
    assert len(fake.requests) == asked


async def test_a_farm_nobody_placed_is_asked_for_its_location(weather_pipeline: Pipeline) -> None:
    text = await _ask(weather_pipeline, "яка погода завтра")
    assert text.startswith("Не знаю, де ваша ферма")


async def test_spraying_gets_the_hours_that_meet_the_card(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts
) -> None:
    """The spraying card says 10…25 °C, wind up to 4 m/s, humidity from 60 %, 3 dry
    hours after: the fake's mornings are 8 °C, Saturday rains from noon to 18:00."""
    await _farm(db, memory, FARM)
    await forecasts.refresh()
    intro = (
        "Години для обприскування (за карткою: 10…25 °C, вітер до 4 м/с, вологість від"
        " 60 %, 3 год без дощу після):"
    )
    # Asked as a weather question: the windows.
    assert await _ask(weather_pipeline, "чи можна завтра обприскувати?") == "\n".join(
        ["🌦 Прогноз для вашої ферми:", intro, "пт 15.05: 12:00–24:00", "Джерело: Open-Meteo."]
    )
    weekend = await _ask(weather_pipeline, "чи можна обприскувати на вихідних?")
    assert weekend.splitlines()[-3:-1] == ["сб 16.05: 18:00–24:00", "нд 17.05: 12:00–24:00"]
    # Asked as an agronomy question: the card's answer, the windows under it.
    advice = await _ask(weather_pipeline, "коли краще обприскувати, в який час?")
    card, _, windows = advice.partition("\n\n🌦 ")
    assert "Обприскують уранці" in card
    assert windows.splitlines()[1:] == [
        intro, "чт 14.05: 12:00–24:00", "пт 15.05: 12:00–24:00", "Джерело: Open-Meteo.",
    ]  # fmt: skip


async def test_spraying_without_a_forecast_says_so(
    weather_pipeline: Pipeline, db: Database, memory: Memory, fake: FakeOpenMeteo
) -> None:
    await _farm(db, memory, FARM)
    fake.set_mode("garbage")
    text = await _ask(weather_pipeline, "чи можна завтра обприскувати?")
    assert text == (
        "Прогнозу погоди зараз немає, тож годин для обприскування не підкажу — перевірте"
        " вітер і дощ перед виїздом."
    )


async def test_sowing_gets_the_soil_against_the_crops_minimum(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts,
    fake: FakeOpenMeteo, http: httpx.AsyncClient,
) -> None:  # fmt: skip
    """The sunflower card: at least 8 °C at seeding depth."""
    await _farm(db, memory, FARM)
    await forecasts.refresh()
    text = await _ask(weather_pipeline, "чи можна вже сіяти соняшник?")
    card, _, soil = text.partition("\n\n🌦 ")
    assert card  # the sowing card's answer stays first
    assert soil.splitlines() == [
        "Прогноз для вашої ферми:",
        "Соняшник: ґрунт на 6 см прогріється до мінімуму для сівби (8 °C) з сб 16.05.",
        "чт 14.05: ґрунт на 6 см 6…6 °C",
        "пт 15.05: ґрунт на 6 см 7…9 °C",
        "сб 16.05: ґрунт на 6 см 9…11 °C",
        "Джерело: Open-Meteo.",
    ]
    # A model without soil figures: said so, no number made up.
    fake.set_mode("missing")
    later = Forecasts(
        db, OpenMeteo(http, fake.base_url), forecasts.locator,
        clock=lambda: NOW + timedelta(hours=2),
    )  # fmt: skip
    await later.refresh()
    text = await _ask(weather_pipeline, "чи прогрівся ґрунт для соняшнику?")
    _, _, soil = text.partition("\n\n🌦 ")
    assert soil.splitlines() == [
        "Прогноз для вашої ферми:",
        "Температури ґрунту в прогнозі для цієї точки немає, тож про прогрів не скажу —"
        " виміряйте термометром на глибині загортання.",
        "Джерело: Open-Meteo.",
    ]


async def test_a_recorded_spraying_keeps_the_weather_at_its_time(
    weather_pipeline: Pipeline, db: Database, memory: Memory, forecasts: Forecasts,
    catalog: Catalog,
) -> None:  # fmt: skip
    """Issue 27 point 7: ✅ on «обприскали Північне Децисом» keeps the cache's weather of
    that hour on that field (12:30 in Kyiv: 20 °C on Північне, which is 2 °C warmer; 3 m/s;
    no rain after), on the card and in the report's operations sheet."""
    from pipeline.actions import JournalAction, JournalVerb
    from pipeline.farm.reports import build_operations_workbook
    from pipeline.language.texts import Texts
    from tests.integration.reports_world import open_sheets

    await _farm(db, memory, FARM)
    await forecasts.refresh()
    incoming = Incoming(USER, 4242, "сьогодні обприскали Північне Децисом 0,25 л/га",
                        uuid.uuid4().hex[:16], "Оксана", "uk", message_id=77)  # fmt: skip
    card = await weather_pipeline.handle_message(incoming)
    actions = [b.action for row in card.buttons for b in row]
    write = next(a for a in actions if isinstance(a, JournalAction) and a.verb is JournalVerb.WRITE)
    written = await weather_pipeline.handle_action(write, incoming)
    line = catalog.text("uk", "journal.line_weather", temperature="20 °C", wind="3 м/с",
                        humidity="60 %", rain="0 мм")  # fmt: skip
    assert line in written.text
    async with db.read() as session:
        farm = await farm_repo.farm_of(session, USER)
    assert farm is not None
    day = NOW.astimezone(KYIV).date()
    report = await build_operations_workbook(db, farm.farm_id, day, day, texts=Texts(catalog, "uk"))
    [row] = [
        r
        for r in open_sheets(report.content)[catalog.text("uk", "reports.sheet_operations")][1:]
        if r[0] is not None
    ]
    assert row[-1] == line


def windy_monday(lat: float, lon: float, hour: datetime) -> Mapping[str, float | None]:
    """May's weather, but Monday 18 May blows 10 m/s all day: no hour to spray."""
    weather = dict(may_weather(lat, lon, hour))
    if hour.astimezone(KYIV).day == 18:
        weather["wind_speed_10m"] = 36.0
    return weather


async def test_a_planned_spraying_card_says_whether_its_day_has_a_window(
    settings: Settings, db: Database, memory: Memory, http: httpx.AsyncClient,
    rules: Rulebook, catalog: Catalog,
) -> None:  # fmt: skip
    """Issue 27 point 4: the card of a planned spraying shows that day's windows on its
    field, or warns that the forecast has none (Monday's wind), so it can be moved."""
    async with FakeOpenMeteo(now=NOW, weather=windy_monday) as server:
        locator = Locator(TimezoneFinder(), rules.knowledge.data.regions)
        forecasts = Forecasts(db, OpenMeteo(http, server.base_url), locator, clock=lambda: NOW)
        pipeline = build_pipeline(
            settings, db, catalog, memory=memory, rules=rules, clock=lambda: NOW,
            forecasts=forecasts,
        )  # fmt: skip
        await _farm(db, memory, FARM)
        await forecasts.refresh()
        # The farm's point: mornings under the card's 10 °C; Північне is 2 °C warmer.
        friday = await _ask(pipeline, "заплануй обприскування поля За ставком на завтра")
        monday = await _ask(pipeline, "заплануй обприскування Північного на 18 травня")
    fits = catalog.text("uk", "forecast.planned_window", day="пт 15.05", windows="12:00–24:00")
    assert friday.endswith(fits)
    assert monday.endswith(catalog.text("uk", "forecast.planned_no_window", day="пн 18.05"))
    # A card of work already done gets no forecast.
    done = await _ask(pipeline, "сьогодні обприскали Північне Децисом")
    assert "🌤" not in done and "⚠️" not in done
