"""Threshold alerts: one per episode, again after recovery, nobody inactive, outcome
recorded; and the factory's wiring sends them through the real bot."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.wiring.scheduler import JobRunner, JobSpec, default_jobs
from db.engine import create_engine, create_session_factory
from db.models import AlertRow, FarmProfileRow, FieldRow, JobRunRow, UserProfileRow
from db.uow import Database
from pipeline.farm.sensors.alerts import AlertWatcher, RecipientGone
from pipeline.farm.sensors.readings import SensorTypes, parse_batch
from pipeline.farm.sensors.store import SensorStore
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory, build_memory
from tests.conftest import make_settings
from tests.integration.bot_harness import running_bot

FARMER = 2002
USER = f"tg:{FARMER}"
FARM = "farm:alerts"
TYPES = SensorTypes.load()
NORTH = "field:north"
START = datetime(2026, 7, 1, 6, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def tick(self, minutes: int = 5) -> datetime:
        self.now += timedelta(minutes=minutes)
        return self.now


class FakeSender:
    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []
        self.fail_next: Exception | None = None

    async def send(self, chat_id: int, text: str) -> None:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.sent.append((chat_id, text))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sender() -> FakeSender:
    return FakeSender()


@pytest.fixture
def memory(db: Database, clock: Clock) -> Memory:
    return build_memory(db, clock=clock)


def make_watcher(db: Database, sender: FakeSender, catalog: Catalog, clock: Clock) -> AlertWatcher:
    return AlertWatcher(
        sender, db, build_memory(db, clock=clock).editor, catalog, TYPES, clock=clock
    )


@pytest.fixture
def watcher(
    db: Database, sender: FakeSender, memory: Memory, catalog: Catalog, clock: Clock
) -> AlertWatcher:
    return AlertWatcher(sender, db, memory.editor, catalog, TYPES, clock=clock)


async def add_farm(
    factory: async_sessionmaker[AsyncSession],
    *,
    user_id: str = USER,
    farm_id: str = FARM,
    active: bool = True,
    language: str = "uk",
) -> None:
    async with factory() as session:
        session.add(UserProfileRow(user_id=user_id, active=active, preferred_language=language))
        await session.flush()
        session.add(
            FarmProfileRow(
                farm_id=farm_id,
                user_id=user_id,
                alert_thresholds={
                    "soil_moisture_min": 20.0,
                    "temperature_min": -2.0,
                    "temperature_max": 35.0,
                },
                iot_sensors={"has_iot_integration": True, "sensor_types": ["soil_moisture"]},
            )
        )
        await session.flush()
        session.add(FieldRow(farm_id=farm_id, field_id=NORTH, name="Північне"))
        await session.commit()


async def put(
    factory: async_sessionmaker[AsyncSession],
    clock: Clock,
    value: float,
    *,
    sensor_type: str = "soil_moisture",
    farm_id: str = FARM,
    field_id: str | None = NORTH,
) -> None:
    item: dict[str, Any] = {
        "sensor_id": f"probe-{sensor_type}",
        "sensor_type": sensor_type,
        "value": value,
        "measured_at": clock.now.isoformat(),
        "field_id": field_id,
    }
    await SensorStore(Database(factory), TYPES).ingest(
        farm_id, parse_batch([item], TYPES, now=clock.now), source="api"
    )


async def episodes(factory: async_sessionmaker[AsyncSession]) -> list[AlertRow]:
    async with factory() as session:
        rows = (await session.execute(select(AlertRow).order_by(AlertRow.id))).scalars().all()
        await session.commit()
    return list(rows)


async def last_alert(factory: async_sessionmaker[AsyncSession], farm_id: str = FARM) -> Any:
    async with factory() as session:
        farm = await session.get(FarmProfileRow, farm_id)
        assert farm is not None
        return farm.iot_sensors.get("last_alert")


@pytest.fixture
async def farm(session_factory: async_sessionmaker[AsyncSession]) -> None:
    await add_farm(session_factory)


@pytest.mark.usefixtures("farm")
async def test_one_alert_per_episode_and_again_after_recovery(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
    catalog: Catalog,
) -> None:
    await _episodes_scenario(session_factory, watcher, sender, clock, catalog)


@pytest.mark.postgres
async def test_episodes_on_postgres(
    migrated_postgres_url: str,
    sender: FakeSender,
    clock: Clock,
    catalog: Catalog,
) -> None:
    engine = create_engine(migrated_postgres_url)
    try:
        factory = create_session_factory(engine)
        await add_farm(factory)
        watcher = make_watcher(Database(factory), sender, catalog, clock)
        await _episodes_scenario(factory, watcher, sender, clock, catalog)
    finally:
        await engine.dispose()


async def _episodes_scenario(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
    catalog: Catalog,
) -> None:
    await put(session_factory, clock, 31)
    assert (await watcher.run()).opened == 0
    assert sender.sent == [] and await last_alert(session_factory) is None

    # A dry spell lasting many readings and many watcher runs: one alert.
    for value in (18.0, 17.5, 16.0, 15.2, 14.9, 14.0):
        clock.tick()
        await put(session_factory, clock, value)
        await watcher.run()
    assert len(sender.sent) == 1
    chat_id, text = sender.sent[0]
    assert chat_id == FARMER
    # The farm's clock (Kyiv, UTC+3 in July) and the decimal comma of the answers.
    assert "Північне" in text and "18 %" in text and "20 %" in text and "09:05" in text
    assert catalog.text("uk", "alerts.action_soil_moisture_below_min") in text
    [episode] = await episodes(session_factory)
    assert episode.kind == "below_min" and episode.ended_at is None
    assert episode.notified_at is not None
    assert await last_alert(session_factory) is not None

    # Back above the threshold by the margin: the episode closes, one recovery message.
    clock.tick()
    await put(session_factory, clock, 27)
    result = await watcher.run()
    assert (result.closed, result.sent) == (1, 1)
    [episode] = await episodes(session_factory)
    assert episode.ended_at is not None and episode.ended_value == 27
    assert catalog.text("uk", "alerts.recovered").split(" ")[0] in sender.sent[1][1]
    assert "27 %" in sender.sent[1][1]
    clock.tick()
    assert (await watcher.run()).sent == 0  # the recovery is told once

    # A new breach is a new episode and a new alert.
    clock.tick()
    await put(session_factory, clock, 12)
    await watcher.run()
    clock.tick()
    await watcher.run()
    assert len(sender.sent) == 3 and "12 %" in sender.sent[2][1]
    assert [e.ended_at is None for e in await episodes(session_factory)] == [False, True]


@pytest.mark.usefixtures("farm")
async def test_temperature_alerts_in_the_users_language(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
    catalog: Catalog,
) -> None:
    async with session_factory() as session:
        user = await session.get(UserProfileRow, USER)
        assert user is not None
        user.preferred_language = "en"
        await session.commit()
    await put(session_factory, clock, 38.5, sensor_type="temperature", field_id=None)
    await watcher.run()
    [(_, text)] = sender.sent
    assert "38.5 °C" in text and "35 °C" in text
    assert catalog.text("en", "alerts.no_field") in text
    assert catalog.text("en", "alerts.action_temperature_above_max") in text
    # Straight from heat to frost: the heat episode ends, a frost one starts.
    clock.tick()
    await put(session_factory, clock, -4, sensor_type="temperature", field_id=None)
    await watcher.run()
    assert [e.kind for e in await episodes(session_factory)] == ["above_max", "below_min"]
    # The heat episode's recovery, then the frost alert.
    assert "back to normal" in sender.sent[1][1]
    assert catalog.text("en", "alerts.action_temperature_below_min") in sender.sent[2][1]


async def test_no_alert_for_inactive_or_non_telegram_users(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
) -> None:
    await add_farm(session_factory, active=False)
    await add_farm(session_factory, user_id="console:1", farm_id="farm:console")
    await put(session_factory, clock, 5)
    await put(session_factory, clock, 5, farm_id="farm:console", field_id=None)
    for _ in range(3):
        result = await watcher.run()
        clock.tick()
    assert sender.sent == [] and result.sent == 0
    rows = await episodes(session_factory)
    assert len(rows) == 2 and all(e.notified_at is None for e in rows)


@pytest.mark.usefixtures("farm")
async def test_failed_send_is_retried_and_blocked_user_marked_inactive(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
) -> None:
    await put(session_factory, clock, 5)
    sender.fail_next = ConnectionError("telegram unreachable")
    assert (await watcher.run()).failed == 1
    clock.tick()
    assert (await watcher.run()).sent == 1
    assert len(sender.sent) == 1

    clock.tick()
    await put(session_factory, clock, 40)  # recovery: told once
    await watcher.run()
    assert len(sender.sent) == 2
    clock.tick()
    await put(session_factory, clock, 3)
    sender.fail_next = RecipientGone("Forbidden: bot was blocked by the user")
    await watcher.run()
    async with session_factory() as session:
        user = await session.get(UserProfileRow, USER)
        assert user is not None and user.active is False
    clock.tick()
    await watcher.run()
    assert len(sender.sent) == 2


@pytest.mark.usefixtures("farm")
async def test_stale_readings_open_no_episode(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    sender: FakeSender,
    clock: Clock,
) -> None:
    await put(session_factory, clock, 5)
    clock.tick(minutes=60 * 25)
    result = await watcher.run()
    # The farm is still watched (for silence), but a day-old value opens nothing, and
    # one reading is not a probe that "used to report".
    assert (result.farms, result.opened) == (1, 0) and sender.sent == []


@pytest.mark.usefixtures("farm")
async def test_the_job_records_its_outcome(
    session_factory: async_sessionmaker[AsyncSession],
    watcher: AlertWatcher,
    db: Database,
    memory: Memory,
    sender: FakeSender,
    clock: Clock,
) -> None:
    def jobs(watcher: AlertWatcher | None) -> list[JobSpec]:
        return default_jobs(
            db,
            sweep=memory.sweep,
            cache=memory.cache,
            sync=memory.sync,
            clock=clock,
            watcher=watcher,
        )

    specs = {s.job_id: s for s in jobs(watcher)}
    spec = specs["sensor_watch"]
    assert spec.trigger.interval == timedelta(minutes=5)  # type: ignore[attr-defined]
    await put(session_factory, clock, 5)
    runner = JobRunner(db, "test", clock=clock)
    assert await runner.run(spec) == "ok"
    async with session_factory() as session:
        row = await session.get(JobRunRow, "sensor_watch")
    assert row is not None and row.last_outcome == "ok"
    assert row.last_detail == "farms 1, opened 1, closed 0, sent 1, failed 0"
    assert "sensor_watch" not in {s.job_id for s in jobs(None)}


async def test_the_bot_sends_alerts_through_telegram(sqlite_url: str) -> None:
    """The factory binds a sender to the bot at startup; the scheduled job uses it."""
    async with running_bot(make_settings(sqlite_url)) as harness:
        await harness.say(FARMER, "привіт")
        db = harness.core.db
        async with db.read() as session:
            farm_id = await session.scalar(
                select(FarmProfileRow.farm_id).where(FarmProfileRow.user_id == USER)
            )
        assert farm_id is not None
        now = datetime.now(UTC)
        item = {
            "sensor_id": "p1",
            "sensor_type": "soil_moisture",
            "value": 4.0,
            "measured_at": now.isoformat(),
        }
        await harness.core.sensors.ingest(farm_id, parse_batch([item], TYPES), source="api")
        job = harness.dispatcher["scheduler"].get_job("sensor_watch")
        assert job is not None
        since = len(harness.api.sent)
        assert await JobRunner(db, "test").run(job.args[0]) == "ok"
        call = await harness.reply(FARMER, since)
        assert harness.core.pipeline.catalog.text("uk", "alerts.no_field") in (call.text or "")
