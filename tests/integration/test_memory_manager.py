"""The memory services on a real migrated SQLite database: the seed's update rules
(section 6), the outbox written in the same transaction, profile edits, forget, the
cache."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import create_engine
from db.models import FarmProfileRow, InteractionRow, OutboxRow, UserProfileRow
from db.repositories import outbox
from db.uow import Database
from pipeline.memory import InteractionRecord, Memory, build_memory, memory_client
from pipeline.memory.profiles.rows import user_from_row
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import DepthDecision

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
Factory = async_sessionmaker[AsyncSession]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def memory(db: Database, http: httpx.AsyncClient) -> Memory:
    # A client that is never called here (nothing flushes): it only switches the
    # outbox on. Port 9 (discard) would refuse anyway.
    return build_memory(db, MemoryServiceClient("http://127.0.0.1:9", http), clock=lambda: T0)


@pytest.fixture
def sql_only(db: Database) -> Memory:
    return build_memory(db, clock=lambda: T0)


def on_broken_database(path: Any, memory: Memory | None = None) -> tuple[Memory, Any]:
    """Services over a database without the schema (any SQL fails), sharing
    ``memory``'s cache; returns them and the engine to dispose."""
    broken = create_engine(f"sqlite+aiosqlite:///{path / 'empty.db'}")
    cache = memory.cache if memory is not None else None
    return build_memory(Database.of(broken), cache=cache, clock=lambda: T0), broken


def record(
    intent: str = "greeting",
    *,
    user: str = "tg:1",
    at: datetime = T0,
    mode: str = "light",
    name: str | None = "Оксана",
) -> InteractionRecord:
    return InteractionRecord(
        user_id=user,
        chat_id=1,
        trace_id=uuid.uuid4().hex[:16],
        text=f"text for {intent}",
        decision=DepthDecision(mode, intent, (), 0.9, "test"),  # type: ignore[arg-type]
        crew=(),
        latency_ms=1.0,
        at=at,
        name=name,
        language="uk",
    )


async def record_many(
    memory: Memory, factory: Factory, intents: list[str], user: str = "tg:1"
) -> None:
    for n, intent in enumerate(intents):
        await memory.interactions.record(record(intent, user=user, at=T0 + timedelta(minutes=n)))


async def user_row(factory: Factory, user: str = "tg:1") -> UserProfileRow:
    async with factory() as session:
        row = await session.get(UserProfileRow, user)
        assert row is not None
        return row


async def outbox_rows(factory: Factory, user: str | None = None) -> list[OutboxRow]:
    async with factory() as session:
        query = select(OutboxRow).order_by(OutboxRow.id)
        if user is not None:
            query = query.where(OutboxRow.user_id == user)
        return list((await session.execute(query)).scalars())


async def count(factory: Factory, model: type[Any]) -> int:
    async with factory() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def set_columns(factory: Factory, user: str = "tg:1", **values: Any) -> None:
    async with factory() as session:
        await session.execute(
            update(UserProfileRow).where(UserProfileRow.user_id == user).values(**values)
        )
        await session.commit()


# -- seed section 6: update rules, one test each -------------------------------------


async def test_last_seen_is_the_interaction_time(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting", "thanks"])
    row = await user_row(session_factory)
    assert row.last_seen is not None
    assert row.last_seen.replace(tzinfo=UTC) == T0 + timedelta(minutes=1)


async def test_interaction_count_counts_every_interaction(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(memory, session_factory, ["greeting", "", "greeting", "planning"])
    assert (await user_row(session_factory)).interaction_count == 4
    assert await count(session_factory, InteractionRow) == 4


async def test_recent_topics_keep_the_last_ten_in_order(
    memory: Memory, session_factory: Factory
) -> None:
    intents = [f"intent{n}" for n in range(13)]
    await record_many(memory, session_factory, intents)
    topics = (await user_row(session_factory)).recent_topics
    assert [t["intent"] for t in topics] == intents[-10:]
    profile = user_from_row(await user_row(session_factory))
    assert profile.recent_topics[-1].ts == T0 + timedelta(minutes=12)


async def test_known_intents_collect_each_new_intent_once(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(
        memory, session_factory, ["greeting", "planning", "greeting", "", "iot", "planning"]
    )
    assert (await user_row(session_factory)).known_intents == ["greeting", "planning", "iot"]


async def test_novice_becomes_intermediate_at_ten_with_work_intents(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(memory, session_factory, ["greeting"])
    await set_columns(session_factory, expertise_level="novice")
    await record_many(memory, session_factory, ["planning", "recording", *["thanks"] * 6])
    row = await user_row(session_factory)
    assert (row.interaction_count, row.expertise_level) == (9, "novice")
    await record_many(memory, session_factory, ["thanks"])
    row = await user_row(session_factory)
    assert (row.interaction_count, row.expertise_level) == (10, "intermediate")


async def test_chatting_alone_does_not_upgrade(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting"])
    await set_columns(session_factory, expertise_level="novice")
    await record_many(memory, session_factory, ["thanks", "greeting", "planning"] * 10)
    assert (await user_row(session_factory)).expertise_level == "novice"


async def test_intermediate_becomes_expert_at_thirty_with_technical_intents(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(memory, session_factory, ["iot", "analysis", *["thanks"] * 27])
    row = await user_row(session_factory)
    assert (row.interaction_count, row.expertise_level) == (29, "intermediate")
    await record_many(memory, session_factory, ["thanks"])
    row = await user_row(session_factory)
    assert (row.interaction_count, row.expertise_level) == (30, "expert")
    # The upgrade travels in the same outbox row as the counters.
    last = (await outbox_rows(session_factory))[-1]
    assert last.payload is not None and last.payload["expertise_level"] == "expert"


async def test_operator_level_is_never_overridden(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting"])
    assert await memory.editor.set_expertise("tg:1", "novice", by_operator=True)
    await record_many(memory, session_factory, ["iot", "analysis", "planning"] * 12)
    row = await user_row(session_factory)
    assert row.interaction_count == 37
    assert (row.expertise_level, row.expertise_locked) == ("novice", True)
    assert await memory.sweep.run() == 0
    # Nobody but an operator may move a locked level.
    assert not await memory.editor.set_expertise("tg:1", "expert", by_operator=False)
    assert (await user_row(session_factory)).expertise_level == "novice"


async def test_sweep_upgrades_whoever_the_rule_allows(
    memory: Memory, session_factory: Factory
) -> None:
    for user in ("tg:a", "tg:b", "tg:c", "tg:d"):
        await record_many(memory, session_factory, ["greeting"], user=user)
    work = ["planning", "recording", "iot", "analysis"]
    # Rows edited behind the rule's back (as after a rule change or an import).
    await set_columns(session_factory, "tg:a", expertise_level="novice", interaction_count=12,
                      known_intents=work[:2])  # fmt: skip
    await set_columns(session_factory, "tg:b", interaction_count=40, known_intents=work)
    await set_columns(session_factory, "tg:c", expertise_level="novice", interaction_count=40,
                      known_intents=work, expertise_locked=True)  # fmt: skip
    await set_columns(session_factory, "tg:d", expertise_level="novice", interaction_count=9,
                      known_intents=work)  # fmt: skip
    before = len(await outbox_rows(session_factory))
    assert await memory.sweep.run() == 2
    levels = {u: (await user_row(session_factory, u)).expertise_level for u in "abcd"
              for u in [f"tg:{u}"]}  # fmt: skip
    assert levels == {"tg:a": "intermediate", "tg:b": "expert", "tg:c": "novice", "tg:d": "novice"}
    rows = (await outbox_rows(session_factory))[before:]
    assert sorted(r.user_id for r in rows) == ["tg:a", "tg:b"]
    assert await memory.sweep.run() == 0


# -- the outbox: same transaction, only with a memory-service -------------------------


async def test_every_change_writes_one_outbox_row_with_the_seed_json(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(memory, session_factory, ["greeting"])
    rows = await outbox_rows(session_factory)
    # First contact creates the farm too, so both facts exist from day one.
    assert [(r.fact_key, r.operation) for r in rows] == [
        ("farm_profile:agromatrix:tg:1", "upsert"),
        ("user_profile:agromatrix:tg:1", "upsert"),
    ]
    loaded = await memory.profiles.load("tg:1")
    assert rows[1].payload == loaded.profile.to_seed_json()
    assert rows[0].payload == loaded.farm.to_seed_json()
    assert all(r.sent_at is None and r.attempts == 0 for r in rows)

    await memory.editor.set_style("tg:1", "brief")
    await memory.editor.update_farm("tg:1", current_phase="sowing")
    rows = await outbox_rows(session_factory)
    assert rows[2].payload is not None and rows[2].payload["preferred_style"] == "brief"
    assert rows[3].payload is not None
    assert rows[3].payload["seasonal_context"]["current_phase"] == "sowing"
    assert len(rows) == 4


async def test_without_a_memory_service_no_outbox_rows_are_written(
    sql_only: Memory, session_factory: Factory
) -> None:
    await record_many(sql_only, session_factory, ["greeting", "planning"])
    await sql_only.editor.update_user("tg:1", name="Петро")
    await sql_only.editor.update_farm("tg:1", farm_name="Калинівка")
    await sql_only.editor.set_style("tg:1", "brief")
    await sql_only.editor.forget("tg:1")
    assert await count(session_factory, OutboxRow) == 0
    assert sql_only.sync.breaker_state == "disabled"
    result = await sql_only.sync.flush()
    assert (result.sent, result.failed, result.pending) == (0, 0, 0)


async def test_profile_and_outbox_commit_together_or_not_at_all(
    memory: Memory, session_factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    await record_many(memory, session_factory, ["greeting"])
    rows_before = len(await outbox_rows(session_factory))

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(outbox, "enqueue", broken)
    await record_many(memory, session_factory, ["planning"])  # must not raise
    assert await memory.editor.update_user("tg:1", name="Петро") is None
    row = await user_row(session_factory)
    assert (row.interaction_count, row.known_intents, row.name) == (1, ["greeting"], "Оксана")
    assert await count(session_factory, InteractionRow) == 1
    assert len(await outbox_rows(session_factory)) == rows_before


async def test_backlog_counts_unsent_rows(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting", "thanks"])
    assert await memory.sync.backlog() == 3


# -- profile edits -------------------------------------------------------------------------


async def test_update_user_validates_and_creates_the_user(
    memory: Memory, session_factory: Factory
) -> None:
    profile = await memory.editor.update_user(
        "tg:new", name="Іван", preferred_style="brief", preferred_language="en"
    )
    assert profile is not None and profile.name == "Іван"
    row = await user_row(session_factory, "tg:new")
    assert (row.name, row.preferred_style, row.preferred_language) == ("Іван", "brief", "en")
    assert await count(session_factory, FarmProfileRow) == 1
    with pytest.raises(ValueError, match="preferred_style"):
        await memory.editor.update_user("tg:new", preferred_style="loud")
    with pytest.raises(ValueError, match="unknown profile field"):
        await memory.editor.update_user("tg:new", shoe_size=42)
    with pytest.raises(ValueError, match="set_expertise"):
        await memory.editor.update_user("tg:new", expertise_level="expert")
    assert (await user_row(session_factory, "tg:new")).preferred_style == "brief"


async def test_update_farm_sets_nested_fields_by_name(
    memory: Memory, session_factory: Factory
) -> None:
    farm = await memory.editor.update_farm(
        "tg:9",
        farm_name="Калинівка",
        field_ids=["field:north-01"],
        current_phase="sowing",
        has_iot_integration=True,
        soil_moisture_min="25",  # operators type numbers as text
    )
    assert farm is not None
    loaded = await memory.profiles.load("tg:9")
    assert loaded.known and loaded.farm == farm
    assert loaded.farm.seasonal_context.current_phase == "sowing"
    assert loaded.farm.has_iot and loaded.farm.alert_thresholds.soil_moisture_min == 25.0
    # Untouched nested values keep their defaults.
    assert loaded.farm.alert_thresholds.temperature_max == 38.0
    again = await memory.editor.update_farm("tg:9", temperature_max=30)
    assert again is not None and again.farm_id == farm.farm_id  # the id never changes
    assert again.alert_thresholds.soil_moisture_min == 25.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"current_phase": "partying"}, "current_phase"),
        ({"soil_moisture_min": 120}, "soil_moisture_min"),
        ({"temperature_min": 40}, "temperature_min must be below temperature_max"),
        ({"approximate_month": 13}, "approximate_month"),
        ({"color": "red"}, "unknown farm field"),
    ],
)
async def test_update_farm_rejects_invalid_values_clearly(
    memory: Memory, session_factory: Factory, changes: dict[str, Any], message: str
) -> None:
    await memory.editor.update_farm("tg:9", temperature_max=35)
    with pytest.raises(ValueError, match=message):
        await memory.editor.update_farm("tg:9", **changes)
    farm = (await memory.profiles.load("tg:9")).farm
    assert farm.alert_thresholds.temperature_max == 35


async def test_update_farm_needs_a_change(memory: Memory, session_factory: Factory) -> None:
    # Creating a farm is ensure_farm's job, never a side effect of an empty update.
    with pytest.raises(ValueError, match="ensure_farm"):
        await memory.editor.update_farm("tg:9")
    assert await count(session_factory, FarmProfileRow) == 0
    farm_id = await memory.editor.ensure_farm("tg:9")
    assert farm_id is not None and farm_id == await memory.editor.ensure_farm("tg:9")
    rows = await outbox_rows(session_factory, "tg:9")
    assert [r.fact_key for r in rows] == ["farm_profile:agromatrix:tg:9"]  # announced once


async def test_threshold_check_uses_the_stored_maximum(
    memory: Memory, session_factory: Factory
) -> None:
    await memory.editor.update_farm("tg:9", temperature_max=10)
    # Valid against the defaults (38), invalid against what is stored (10).
    with pytest.raises(ValueError, match="below temperature_max"):
        await memory.editor.update_farm("tg:9", temperature_min=15)


async def test_set_style_and_expertise(memory: Memory, session_factory: Factory) -> None:
    assert not await memory.editor.set_style("tg:1", "brief")  # unknown user
    await record_many(memory, session_factory, ["greeting"])
    assert await memory.editor.set_style("tg:1", "detailed")
    assert not await memory.editor.set_style("tg:1", "loud")  # type: ignore[arg-type]
    assert await memory.editor.set_expertise("tg:1", "expert", by_operator=False)
    row = await user_row(session_factory)
    assert (row.preferred_style, row.expertise_level, row.expertise_locked) == (
        "detailed",
        "expert",
        False,
    )


async def test_set_active(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting"])
    await memory.editor.set_active("tg:1", False)
    assert (await user_row(session_factory)).active is False


# -- forget -----------------------------------------------------------------------------------


async def test_forget_leaves_only_the_delete_rows(memory: Memory, session_factory: Factory) -> None:
    await record_many(memory, session_factory, ["greeting", "planning"])
    await record_many(memory, session_factory, ["greeting"], user="tg:other")
    await memory.editor.forget("tg:1")
    async with session_factory() as session:
        for model in (UserProfileRow, FarmProfileRow, InteractionRow):
            left = await session.scalar(
                select(func.count()).select_from(model).where(model.user_id == "tg:1")
            )
            assert left == 0, model.__tablename__
    rows = await outbox_rows(session_factory, "tg:1")
    assert [(r.operation, r.fact_key, r.payload) for r in rows] == [
        ("delete", "user_profile:agromatrix:tg:1", None),
        ("delete", "farm_profile:agromatrix:tg:1", None),
        ("summary_purge", "summaries", None),
    ]
    # Somebody else's data is untouched.
    assert (await user_row(session_factory, "tg:other")).interaction_count == 1
    assert not (await memory.profiles.load("tg:1")).known


async def test_forget_without_a_memory_service_leaves_nothing(
    sql_only: Memory, session_factory: Factory
) -> None:
    await record_many(sql_only, session_factory, ["greeting"])
    await sql_only.editor.forget("tg:1")
    for model in (UserProfileRow, FarmProfileRow, InteractionRow, OutboxRow):
        assert await count(session_factory, model) == 0


# -- load and the cache ----------------------------------------------------------------------


async def test_unknown_user_gets_a_valid_default(memory: Memory, session_factory: Factory) -> None:
    loaded = await memory.profiles.load("tg:nobody")
    assert not loaded.known and not loaded.degraded and not loaded.hydrated
    assert loaded.profile == UserProfile.default("tg:nobody")
    assert loaded.farm.user_id == "tg:nobody"


async def test_a_reader_never_sees_a_profile_older_than_its_own_write(
    memory: Memory, session_factory: Factory
) -> None:
    await record_many(memory, session_factory, ["greeting"])
    assert (await memory.profiles.load("tg:1")).profile.name == "Оксана"
    assert memory.cache.get("tg:1") is not None  # the load above was cached
    steps: list[tuple[str, Any]] = [
        ("name", lambda: memory.editor.update_user("tg:1", name="Петро")),
        ("style", lambda: memory.editor.set_style("tg:1", "brief")),
        ("level", lambda: memory.editor.set_expertise("tg:1", "expert", by_operator=True)),
        ("count", lambda: memory.interactions.record(record("thanks"))),
        ("farm", lambda: memory.editor.update_farm("tg:1", farm_name="Калинівка")),
    ]
    for _label, write in steps:
        await memory.profiles.load("tg:1")  # warm the cache before each write
        await write()
    loaded = await memory.profiles.load("tg:1")
    profile, farm = loaded.profile, loaded.farm
    assert (profile.name, profile.preferred_style, profile.expertise_level) == (
        "Петро",
        "brief",
        "expert",
    )
    assert profile.interaction_count == 2 and farm.farm_name == "Калинівка"


async def test_cached_profile_is_served_without_sql(
    memory: Memory, session_factory: Factory, tmp_path: Any
) -> None:
    await record_many(memory, session_factory, ["greeting"])
    first = await memory.profiles.load("tg:1")
    # The same cache over a database without the schema: any SQL would fail.
    on_broken, broken = on_broken_database(tmp_path, memory)
    cached = await on_broken.profiles.load("tg:1")
    await broken.dispose()
    assert cached.known and not cached.degraded and cached.profile == first.profile
    assert memory.cache.expire() == 0


async def test_next_load_after_a_message_needs_no_sql(
    memory: Memory, db: Database, session_factory: Factory, tmp_path: Any
) -> None:
    """record_interaction writes the committed profile through to the cache, so the
    next message's load costs no SQL transaction - and it is exactly what SQL holds."""
    await record_many(memory, session_factory, ["greeting", "planning"])
    on_broken, broken = on_broken_database(tmp_path, memory)
    cached = await on_broken.profiles.load("tg:1")
    await broken.dispose()
    assert cached.known and not cached.degraded
    fresh = build_memory(db)  # its own, empty cache: reads SQL
    from_sql = await fresh.profiles.load("tg:1")
    assert cached.profile == from_sql.profile and cached.farm == from_sql.farm
    assert cached.profile.interaction_count == 2


async def test_database_failure_degrades_to_defaults(tmp_path: Any) -> None:
    memory, broken = on_broken_database(tmp_path)
    loaded = await memory.profiles.load("tg:1")
    await memory.interactions.record(record())  # must not raise
    await broken.dispose()
    assert loaded.degraded and loaded.profile == UserProfile.default("tg:1")
    assert isinstance(loaded.farm, FarmProfile)


def test_builder_without_url_has_no_client(db: Database) -> None:
    memory = build_memory(db, memory_client(None, None))
    assert memory.sync.client is None and memory.sync.breaker_state == "disabled"


async def test_builder_with_url_uses_the_given_client(
    db: Database, http: httpx.AsyncClient
) -> None:
    memory = build_memory(db, memory_client("http://memory:8000/", http))
    assert memory.sync.client is not None and memory.sync.client.base_url == "http://memory:8000"
    assert memory.sync.breaker_state == "closed"
    with pytest.raises(ValueError):
        memory_client("http://memory:8000", None)
