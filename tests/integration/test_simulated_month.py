"""A simulated month of one farmer (issue 11 point 8): every message through
``Pipeline.handle_message`` on its day, journal cards confirmed with ✅, the farm's
probe posting readings from the second week, the daily learning jobs at night. The
profile after it holds what the month taught: the level, the typical intents, the
crops and fields from the journal, the IoT integration, the season, and the
conversation summaries (the nightly compaction of each silent deep conversation).

Run with ``-s`` to see the /me card the farmer would read at the end."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import InteractionRow
from db.uow import Database
from pipeline.admin.cards import my_memory
from pipeline.farm.naming import NameBook
from pipeline.farm.sensors.readings import SensorTypes, parse_batch
from pipeline.farm.sensors.store import SensorStore
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import Memory
from pipeline.recall.card import summaries_block
from pipeline.types import Incoming
from tests.integration import learning_world as world
from tests.integration.learning_world import MovingClock, add_fields, write_button

Factory = async_sessionmaker[AsyncSession]
#: The learning world's fixtures, on this module's ``clock``.
pipeline_clock, http, memory = world.pipeline_clock, world.http, world.memory
USER = "tg:4242"
#: Day 1 of the month: Friday 1 May 2026, the farmer writes at 07:00 Kyiv time.
START = datetime(2026, 5, 1, 4, 0, tzinfo=UTC)

#: (day, text, confirm the journal card). Greetings and thanks as a farmer writes
#: them; field work recorded as it happens; questions about sensors once the probe
#: is in (day 8), a plan and a plan/fact look at the end of the month.
MONTH: list[tuple[int, str, bool]] = [
    (1, "привіт", False),
    (1, "вчора посіяли кукурудзу на Північному", True),
    (1, "дякую", False),
    (2, "запиши полив 20 мм на полі 3", True),
    (3, "сплануй роботи на наступний тиждень", False),
    (3, "дякую", False),
    (4, "вчора посіяли соняшник на полі 3", True),
    (5, "добрий ранок", False),
    (5, "запиши полив 15 мм на Північному", True),
    (6, "що робити з бур'янами на кукурудзі", False),
    (7, "дякую", False),
    (8, "яка вологість ґрунту на Північному", False),
    (9, "запиши обприскування кукурудзи на Північному гербіцидом 2 л/га", True),
    (10, "яка температура ґрунту на полі 3", False),
    (11, "привіт", False),
    (12, "запиши полив 10 мм на полі 3", True),
    (13, "покажи дані датчиків за тиждень", False),
    (14, "дякую", False),
    (15, "сплануй підживлення соняшнику", False),
    (16, "запиши підживлення соняшнику на полі 3 аміачною селітрою 100 кг/га", True),
    (17, "яка вологість ґрунту на полі 3", False),
    (18, "дякую", False),
    (19, "запиши полив 20 мм на Північному", True),
    (20, "порівняй план і факт по полях", False),
    (21, "привіт", False),
    (22, "яка вологість ґрунту на Північному", False),
    (23, "запиши обприскування соняшнику на полі 3 фунгіцидом 1 л/га", True),
    (24, "дякую", False),
    (25, "статистика поливів по полях", False),
    (26, "запиши полив 15 мм на полі 3", True),
    (27, "яка вологість ґрунту на полі 3", False),
    (28, "план факт за травень", False),
    (29, "дякую", False),
    (30, "запиши полив 10 мм на Північному", True),
]


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock(START)


def _incoming(text: str, message_id: int) -> Incoming:
    return Incoming(
        USER, 4242, text, uuid.uuid4().hex[:16], first_name="Петро", message_id=message_id
    )


async def _probe_reports(sensors: SensorStore, farm_id: str, at: datetime) -> None:
    item = {
        "sensor_id": "probe-north",
        "sensor_type": "soil_moisture",
        "value": 27.5,
        "measured_at": (at - timedelta(minutes=30)).isoformat(),
        "field_id": "Північне",
    }
    readings = parse_batch([item], sensors.types, now=at)
    await sensors.ingest(farm_id, readings, source="api")


async def test_a_month_of_one_farmer_teaches_the_profile(
    pipeline: Pipeline,
    memory: Memory,
    db: Database,
    session_factory: Factory,
    clock: MovingClock,
) -> None:
    sensors = SensorStore(db, SensorTypes.load(), learner=memory.learner)
    assert pipeline.recall is not None
    conversations = pipeline.recall.conversations
    confirmed = 0
    levels: dict[int, str] = {}
    for n, (day, text, confirm) in enumerate(MONTH, start=1):
        clock.now = START + timedelta(days=day - 1, minutes=n)
        reply = await pipeline.handle_message(_incoming(text, n))
        if n == 1:
            await add_fields(session_factory, USER)
            # Onboarding's «Як давно ви займаєтесь агрономією?»: «менше року».
            assert await memory.editor.set_expertise(USER, "novice", by_operator=False)
        if confirm:
            action = write_button(reply)
            assert action is not None, f"no journal card for {text!r}: {reply.text!r}"
            await pipeline.handle_action(action, _incoming("", n))
            confirmed += 1
        if day >= 8:
            farm_id = (await memory.profiles.load(USER)).farm.farm_id
            await _probe_reports(sensors, farm_id, clock.now)
        levels[n] = (await memory.profiles.load(USER)).profile.expertise_level
        if n == len(MONTH) or MONTH[n][0] != day:
            # The night's jobs, as the scheduler runs them.
            clock.now = START + timedelta(days=day, hours=-1)
            await memory.sweep.run()
            await memory.learner.sweep()
            await conversations.close_idle()

    loaded = await memory.profiles.load(USER)
    profile, farm = loaded.profile, loaded.farm
    talks = await conversations.window(USER)
    names = await NameBook(db, pipeline.journal.vocabulary).of(farm, "uk")
    block = summaries_block(talks, farm.timezone, Texts(pipeline.catalog, "uk"))
    card = my_memory(profile, farm, names, Texts(pipeline.catalog, "uk"), block)
    print(f"\n/me after the month:\n{card}\n")

    async with session_factory() as session:
        counted = await session.scalar(
            select(func.count()).select_from(InteractionRow).where(InteractionRow.user_id == USER)
        )
    assert profile.interaction_count == counted == len(MONTH)
    # The level: novice (onboarding's answer), intermediate at 10 with work intents, expert at 30
    # with sensor and analysis questions, and never down.
    assert levels[1] == "novice" and levels[9] == "novice"
    assert levels[10] == "intermediate" and levels[29] == "intermediate"
    assert levels[30] == "expert" and profile.expertise_level == "expert"
    # What the farmer does most, social talk never counted.
    assert farm.typical_intents[:1] == ["recording"]
    assert "iot" in farm.typical_intents
    assert not {"greeting", "thanks"} & set(farm.typical_intents)
    # The journal's fields and crops joined the farm (first seen first).
    assert farm.field_ids == ["field:pivnichne", "field:pole-3"]
    assert farm.crop_ids == ["crop:maize", "crop:sunflower"]
    # The probe switched the integration on.
    assert farm.has_iot and farm.active_integrations == ["sensors"]
    assert farm.iot_sensors.sensor_types == ["soil_moisture"]
    # The season: May; the last two weeks were irrigation and protection; growing.
    season = farm.seasonal_context
    assert season.approximate_month == 5
    assert season.current_phase == "growing"
    assert season.active_operations[0] == "irrigation"
    assert "sowing" not in season.active_operations  # more than two weeks ago
    assert confirmed == sum(1 for _, _, confirm in MONTH if confirm)
    # Each deep conversation (a day's question, then silence) became a summary; the
    # window keeps the newest ones, and the last one has the month's last record.
    async with session_factory() as session:
        deep_days = await session.scalar(
            select(func.count()).where(
                InteractionRow.user_id == USER, InteractionRow.mode == "deep"
            )
        )
    assert len(talks) == min(conversations.rules.window, int(deep_days or 0))
    assert all(3 <= len(talk.text.splitlines()) <= 5 for talk in talks)
    assert "Північне" in talks[0].text and "10 мм" in talks[0].text
    # Everything the month taught is in the memory-service's copy too.
    assert farm.to_seed_json()["crop_ids"] == ["crop:maize", "crop:sunflower"]
