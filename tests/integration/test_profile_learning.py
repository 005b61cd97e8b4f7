"""Profiles that learn from use (issue 11 point 1; rules in pipeline/rules/profiles.toml):
typical intents, the operator flag, sensor readings, the journal's fields, crops and
season, the operator's phase lock and sensor switch, each through the outbox."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine
from db.migrate import upgrade
from db.models import FarmProfileRow, OutboxRow, SensorReadingRow, UserProfileRow
from db.repositories.sensor_watch import farms_with_readings
from db.uow import Database
from pipeline.farm.sensors.readings import ReadingIn, SensorTypes, parse_batch
from pipeline.farm.sensors.store import SensorStore
from pipeline.handle import Pipeline
from pipeline.memory import InteractionRecord, Memory
from pipeline.types import DepthDecision, Incoming
from tests.integration import learning_world as world
from tests.integration.learning_world import MovingClock, add_fields, write_button

Factory = async_sessionmaker[AsyncSession]
#: The learning world's fixtures, on this module's ``clock``.
pipeline_clock, http, memory = world.pipeline_clock, world.http, world.memory
USER = "tg:501"
#: 12 May 2026, 09:00 Kyiv: the calendar month is 5.
NOW = datetime(2026, 5, 12, 6, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock(NOW)


def _record(intent: str, at: datetime, *, operator: bool | None = None) -> InteractionRecord:
    return InteractionRecord(
        user_id=USER,
        chat_id=501,
        trace_id=uuid.uuid4().hex[:16],
        text=f"text for {intent}",
        decision=DepthDecision("deep", intent, (), 0.9, "test"),  # type: ignore[arg-type]
        crew=(),
        latency_ms=1.0,
        at=at,
        name="Ганна",
        language="uk",
        operator=operator,
    )


async def _farm(factory: Factory) -> FarmProfileRow:
    async with factory() as session:
        row = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        return row


async def _user(factory: Factory) -> UserProfileRow:
    async with factory() as session:
        row = await session.get(UserProfileRow, USER)
        assert row is not None
        return row


async def _last_payload(factory: Factory, kind: str) -> dict[str, Any]:
    async with factory() as session:
        rows = (
            await session.execute(
                select(OutboxRow)
                .where(OutboxRow.fact_key == f"{kind}:agromatrix:{USER}")
                .order_by(OutboxRow.id)
            )
        ).scalars()
        payloads = [row.payload for row in rows]
    assert payloads and payloads[-1] is not None
    return payloads[-1]


# -- typical intents -----------------------------------------------------------------


async def test_typical_intents_learned_on_the_spot_and_synced(
    memory: Memory, session_factory: Factory
) -> None:
    intents = ["recording", "greeting", "recording", "planning", "recording"]
    for n, intent in enumerate(intents[:4]):
        await memory.interactions.record(_record(intent, NOW + timedelta(minutes=n)))
    assert (await _farm(session_factory)).typical_intents == []  # not refreshed yet
    await memory.interactions.record(_record(intents[4], NOW + timedelta(minutes=4)))
    # The 5th interaction refreshes: only "recording" was seen 3 times (min_count).
    assert (await _farm(session_factory)).typical_intents == ["recording"]
    assert (await _last_payload(session_factory, "farm_profile"))["typical_intents"] == [
        "recording"
    ]
    # The cache was written through with the learned farm, not the stale one.
    assert (await memory.profiles.load(USER)).farm.typical_intents == ["recording"]


async def test_typical_intents_order_ignore_social_and_leave_the_window(
    memory: Memory, session_factory: Factory, clock: MovingClock
) -> None:
    intents = ["greeting"] * 6 + ["planning"] * 3 + ["iot"] * 4 + ["analysis"] * 2
    for n, intent in enumerate(intents):
        await memory.interactions.record(_record(intent, NOW + timedelta(minutes=n)))
    assert await memory.learner.sweep() >= 0
    # Most frequent first; greetings say nothing about the work; 2 is under min_count.
    assert (await _farm(session_factory)).typical_intents == ["iot", "planning"]
    clock.now = NOW + timedelta(days=31)
    assert await memory.learner.sweep() == 1
    assert (await _farm(session_factory)).typical_intents == []
    assert await memory.learner.sweep() == 0  # nothing left to change


# -- the operator flag ---------------------------------------------------------------


async def test_operator_flag_mirrors_the_operator_list(
    memory: Memory, session_factory: Factory
) -> None:
    await memory.interactions.record(_record("greeting", NOW, operator=True))
    assert (await _user(session_factory)).operator is True
    assert (await _last_payload(session_factory, "user_profile"))["operator"] is True
    # Removed from AGX_OPERATOR_IDS: the start-up sync turns the flag off.
    assert await memory.learner.sync_operators(set()) == 1
    assert (await _user(session_factory)).operator is False
    assert (await _last_payload(session_factory, "user_profile"))["operator"] is False
    assert await memory.learner.sync_operators(set()) == 0
    assert await memory.learner.sync_operators({USER}) == 1
    assert (await _user(session_factory)).operator is True
    # A message whose channel does not know leaves the flag alone.
    await memory.interactions.record(_record("thanks", NOW, operator=None))
    assert (await _user(session_factory)).operator is True


# -- sensor readings -----------------------------------------------------------------


def _readings(
    types: SensorTypes, sensor: str, kind: str, value: float, minute: int
) -> list[ReadingIn]:
    at = (NOW - timedelta(hours=1, minutes=-minute)).isoformat()
    item = {"sensor_id": sensor, "sensor_type": kind, "value": value, "measured_at": at}
    return parse_batch([item], types, now=NOW)


async def test_first_reading_turns_the_iot_integration_on(
    db: Database, memory: Memory, session_factory: Factory
) -> None:
    await memory.interactions.record(_record("greeting", NOW))
    farm = await _farm(session_factory)
    assert farm.iot_sensors.get("has_iot_integration") in (None, False)
    types = SensorTypes.load()
    store = SensorStore(db, types, learner=memory.learner)
    await store.ingest(farm.farm_id, _readings(types, "p1", "soil_moisture", 31.5, 0), source="api")
    farm = await _farm(session_factory)
    assert farm.iot_sensors["has_iot_integration"] is True
    assert farm.iot_sensors["sensor_types"] == ["soil_moisture"]
    assert farm.active_integrations == ["sensors"]
    synced = await _last_payload(session_factory, "farm_profile")
    assert synced["iot_sensors"]["has_iot_integration"] is True
    assert synced["active_integrations"] == ["sensors"]
    # The next readings of the same kind teach nothing: no write, no outbox row.
    before = farm.updated_at
    await store.ingest(farm.farm_id, _readings(types, "p1", "soil_moisture", 30, 10), source="api")
    assert (await _farm(session_factory)).updated_at == before
    # A new source and a new type join.
    await store.ingest(farm.farm_id, _readings(types, "t1", "temperature", 14, 0), source="csv")
    farm = await _farm(session_factory)
    assert farm.active_integrations == ["sensors", "csv"]
    assert farm.iot_sensors["sensor_types"] == ["soil_moisture", "temperature"]


async def test_operator_switches_sensors_on_and_off(
    memory: Memory, session_factory: Factory
) -> None:
    await memory.interactions.record(_record("greeting", NOW))
    on = await memory.learner.set_iot(USER, True)
    assert on is not None and on.has_iot and on.active_integrations == ["sensors"]
    assert await memory.learner.set_iot(USER, True) is None  # already so: nothing written
    # Nothing written, nothing to forget: the cached profile stays.
    await memory.profiles.load(USER)
    assert memory.cache.get(USER) is not None
    assert await memory.learner.set_iot(USER, True) is None
    assert memory.cache.get(USER) is not None
    off = await memory.learner.set_iot(USER, False)
    assert off is not None and not off.has_iot and off.active_integrations == []
    assert (await _last_payload(session_factory, "farm_profile"))["iot_sensors"][
        "has_iot_integration"
    ] is False


async def test_sensors_switched_off_stay_off_when_readings_come(
    db: Database, memory: Memory, session_factory: Factory
) -> None:
    """An operator's off holds: the next readings are stored but switch nothing back
    on, add no integration or type, and raise no alert; on again, they teach again."""
    await memory.interactions.record(_record("greeting", NOW))
    types = SensorTypes.load()
    store = SensorStore(db, types, learner=memory.learner)
    farm = await _farm(session_factory)
    await store.ingest(farm.farm_id, _readings(types, "p1", "soil_moisture", 31.5, 0), source="api")
    off = await memory.learner.set_iot(USER, False)
    assert off is not None and not off.has_iot and off.iot_sensors.switched_off
    # Stepan's own bookkeeping: not in the seed's shape the memory-service keeps.
    synced = await _last_payload(session_factory, "farm_profile")
    assert "switched_off" not in synced["iot_sensors"]
    # A dry field (5 % under the 20 % threshold) from a new source and a new type.
    await store.ingest(farm.farm_id, _readings(types, "p1", "soil_moisture", 5, 5), source="csv")
    await store.ingest(farm.farm_id, _readings(types, "t1", "temperature", 14, 5), source="api")
    farm = await _farm(session_factory)
    assert farm.iot_sensors["has_iot_integration"] is False
    assert farm.active_integrations == [] and farm.iot_sensors["sensor_types"] == ["soil_moisture"]
    async with session_factory() as session:
        stored = await session.scalar(
            select(func.count()).where(SensorReadingRow.farm_id == farm.farm_id)
        )
        watched = await farms_with_readings(
            session, ["soil_moisture", "temperature"], since=NOW - timedelta(hours=1)
        )
    assert stored == 3  # kept all the same
    assert watched == []  # no alerts from a switched-off farm
    on = await memory.learner.set_iot(USER, True)
    assert on is not None and on.has_iot and not on.iot_sensors.switched_off
    await store.ingest(farm.farm_id, _readings(types, "t1", "temperature", 15, 1), source="api")
    farm = await _farm(session_factory)
    assert farm.iot_sensors["sensor_types"] == ["soil_moisture", "temperature"]
    async with session_factory() as session:
        watched = await farms_with_readings(
            session, ["soil_moisture"], since=NOW - timedelta(hours=1)
        )
    assert [w.farm_id for w in watched] == [farm.farm_id]


# -- the journal -----------------------------------------------------------------------


def _incoming(text: str, message_id: int) -> Incoming:
    return Incoming(
        USER, 501, text, uuid.uuid4().hex[:16], first_name="Ганна", message_id=message_id
    )


async def _confirm(pipeline: Pipeline, text: str, message_id: int) -> None:
    card = await pipeline.handle_message(_incoming(text, message_id))
    action = write_button(card)
    assert action is not None, card.text
    await pipeline.handle_action(action, _incoming("", message_id))


@pytest.fixture
async def fields(pipeline: Pipeline, session_factory: Factory) -> str:
    await pipeline.handle_message(_incoming("привіт", 1))
    return await add_fields(session_factory, USER)


async def test_confirmed_journal_entries_join_the_farm_and_make_the_season(
    pipeline: Pipeline, memory: Memory, session_factory: Factory, fields: str
) -> None:
    await _confirm(pipeline, "вчора посіяли соняшник на полі Північне", 10)
    farm = (await memory.profiles.load(USER)).farm
    assert farm.field_ids == ["field:pivnichne"]
    assert farm.crop_ids == ["crop:sunflower"]
    season = farm.seasonal_context
    assert (season.approximate_month, season.current_phase) == (5, "sowing")
    assert season.active_operations == ["sowing"]
    synced = await _last_payload(session_factory, "farm_profile")
    assert synced["crop_ids"] == ["crop:sunflower"]
    assert synced["seasonal_context"]["current_phase"] == "sowing"
    # A later spraying moves the phase on; the crops and fields are a union.
    await _confirm(pipeline, "сьогодні обприскали кукурудзу на полі 3", 11)
    farm = (await memory.profiles.load(USER)).farm
    assert farm.field_ids == ["field:pivnichne", "field:pole-3"]
    assert farm.crop_ids == ["crop:sunflower", "crop:maize"]
    assert farm.seasonal_context.current_phase == "growing"
    assert sorted(farm.seasonal_context.active_operations) == ["sowing", "spraying"]


async def test_an_operators_phase_holds_until_auto(
    pipeline: Pipeline, memory: Memory, session_factory: Factory, fields: str, clock: MovingClock
) -> None:
    await memory.editor.update_farm(USER, current_phase="harvest")
    await _confirm(pipeline, "вчора посіяли соняшник на полі Північне", 20)
    farm = (await memory.profiles.load(USER)).farm
    assert farm.phase_locked and farm.seasonal_context.current_phase == "harvest"
    assert farm.crop_ids == ["crop:sunflower"]  # the rest is still learned
    # "auto": the lock goes and the journal decides again.
    await memory.editor.update_farm(USER, current_phase=None)
    await memory.learner.refresh(USER)
    farm = (await memory.profiles.load(USER)).farm
    assert not farm.phase_locked and farm.seasonal_context.current_phase == "sowing"
    assert "phase_locked" not in await _last_payload(session_factory, "farm_profile")
    # Two weeks of silence: the sowing leaves the window, the calendar moves on.
    clock.now = NOW + timedelta(days=30)
    await memory.learner.sweep()
    season = (await memory.profiles.load(USER)).farm.seasonal_context
    assert season.active_operations == [] and season.approximate_month == 6
    assert season.current_phase == "sowing"  # nothing newer says otherwise


# -- the migration ---------------------------------------------------------------------


async def _children_survive(url: str) -> None:
    """Migration 0019 adds the phase lock in place: re-creating farm_profiles (a
    batch "move and copy" on SQLite) would cascade to every farm's readings."""
    await asyncio.to_thread(upgrade, url, "0018_volume_indexes")
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO user_profiles (user_id, schema_version, agent, expertise_level,"
                    " preferred_language, preferred_style, interaction_count, known_intents,"
                    " context_notes, recent_topics, operator, active) VALUES ('tg:1', 1, 'a',"
                    " 'novice', 'uk', 'brief', 0, '[]', '[]', '[]', false, true)"
                )
            )
            await conn.execute(
                text(
                    "INSERT INTO farm_profiles (farm_id, user_id, schema_version, field_ids,"
                    " crop_ids, active_integrations, seasonal_context, iot_sensors,"
                    " typical_intents, alert_thresholds, dict_pending_count) VALUES ('f1',"
                    " 'tg:1', 1, '[]', '[]', '[]', '{}', '{}', '[]', '{}', 0)"
                )
            )
            await conn.execute(
                text("INSERT INTO fields (farm_id, field_id, name) VALUES ('f1', 'field:a', 'A')")
            )
            await conn.execute(
                text(
                    "INSERT INTO sensor_readings (farm_id, sensor_id, sensor_type, value, unit,"
                    " measured_at, source) VALUES ('f1', 'p', 'soil_moisture', 1, '%',"
                    " :at, 'api')"
                ),
                {"at": NOW},
            )
        await engine.dispose()
        await asyncio.to_thread(upgrade, url, "head")
        engine = create_engine(url)
        async with engine.connect() as conn:
            readings = await conn.scalar(text("SELECT count(*) FROM sensor_readings"))
            fields = await conn.scalar(text("SELECT count(*) FROM fields"))
            locked = await conn.scalar(text("SELECT phase_locked FROM farm_profiles"))
        assert (readings, fields, bool(locked)) == (1, 1, False)
    finally:
        await engine.dispose()


async def test_the_phase_lock_migration_keeps_every_farms_data(tmp_path: Any) -> None:
    await _children_survive(f"sqlite+aiosqlite:///{tmp_path / 'children.db'}")


@pytest.mark.postgres
async def test_the_phase_lock_migration_keeps_every_farms_data_on_postgres(
    postgres_url: str,
) -> None:
    await _children_survive(postgres_url)
