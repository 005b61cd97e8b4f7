"""The memory layer against a REAL local HTTP memory-service (tests/fakes/memory_service.py):
hydration, the outbox flush, and every failure mode - down, hanging, 500, garbage.

No timing assertions: "does not wait" is shown by counting the requests the fake got
(zero while the breaker is open) and by asyncio.wait_for with a generous bound.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.models import FarmProfileRow, OutboxRow, UserProfileRow
from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import FlushResult, Memory, build_memory
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.profiles.rows import farm_from_row, user_from_row
from pipeline.memory.service.auth import Credentials
from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming, Reply
from tests.fakes.memory_service import GET_GARBAGE, JWT_SECRET, FakeMemoryService, ManualClock

Factory = async_sessionmaker[AsyncSession]
COOLDOWN = 30.0
#: Generous bound for "completes without waiting on the memory-service"; the real
#: cost is milliseconds, the hanging service would hold a call forever.
BOUND_S = 10


@pytest.fixture
async def service() -> AsyncIterator[FakeMemoryService]:
    async with FakeMemoryService() as fake:
        yield fake


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


MakeMemory = Callable[..., Memory]
MakePipeline = Callable[[Memory], Pipeline]


@pytest.fixture
def make_memory(
    service: FakeMemoryService, clock: ManualClock, http: httpx.AsyncClient, db: Database
) -> MakeMemory:
    def make(*, threshold: int = 3, attempts: int = 2, timeout_s: float = 0.2) -> Memory:
        breaker = CircuitBreaker(failure_threshold=threshold, cooldown_s=COOLDOWN, clock=clock)
        client = MemoryServiceClient(
            service.base_url,
            http,
            credentials=Credentials(jwt_secret=SecretStr(JWT_SECRET)),
            team_id="agromatrix-team",
            breaker=breaker,
            timeout_s=timeout_s,
            attempts=attempts,
            backoff_s=0,
        )
        return build_memory(db, client, cache=ProfileCache(clock=clock))

    return make


@pytest.fixture
def memory(make_memory: MakeMemory) -> Memory:
    return make_memory()


@pytest.fixture
def make_pipeline(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook
) -> MakePipeline:
    def make(memory: Memory) -> Pipeline:
        return build_pipeline(settings, db, catalog, memory=memory, rules=rules)

    return make


def incoming(text: str, user: str = "tg:1") -> Incoming:
    return Incoming(
        user_id=user, chat_id=1, text=text, trace_id=uuid.uuid4().hex[:16], first_name="Оксана"
    )


async def send(pipeline: Pipeline, factory: Factory, text: str, user: str = "tg:1") -> Reply:
    async def run() -> Reply:
        return await pipeline.handle_message(incoming(text, user))

    return await asyncio.wait_for(run(), BOUND_S)


async def flush_all(memory: Memory, factory: Factory, rounds: int = 10) -> FlushResult:
    result = FlushResult(0, 0, 0)
    for _ in range(rounds):
        result = await memory.sync.flush()
        if result.pending == 0 or result.sent == 0:
            break
    return result


async def sql_profiles(factory: Factory, user: str) -> tuple[UserProfile, FarmProfile]:
    async with factory() as session:
        row = await session.get(UserProfileRow, user)
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == user))
        ).scalar_one()
        assert row is not None
        return user_from_row(row), farm_from_row(farm)


async def pending_rows(factory: Factory) -> list[OutboxRow]:
    async with factory() as session:
        query = select(OutboxRow).where(OutboxRow.sent_at.is_(None)).order_by(OutboxRow.id)
        return list((await session.execute(query)).scalars())


def applied_for(service: FakeMemoryService, user: str) -> list[tuple[str, str, Any]]:
    """(operation, fact kind, value) the service applied for one user, in order."""
    return [
        (op, key.split(":", 1)[0], value)
        for op, who, key, value in service.applied
        if who == f"stepan:{user}"
    ]


# -- hydration -----------------------------------------------------------------------------


async def test_user_sql_does_not_know_is_hydrated_and_kept_in_sql(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    stored = UserProfile.default("tg:5").model_copy(
        update={"name": "Марія", "interaction_count": 17, "expertise_level": "expert"}
    )
    farm = FarmProfile(farm_id="farm:marias", user_id="tg:5", farm_name="Степове")
    service.put_fact("stepan:tg:5", user_fact_key("tg:5"), stored.to_seed_json())
    service.put_fact("stepan:tg:5", farm_fact_key("tg:5"), farm.to_seed_json())
    pipeline = make_pipeline(memory)

    reply = await send(pipeline, session_factory, "привіт", user="tg:5")

    assert "Маріє" in reply.text  # the name from the memory-service (vocative), not Telegram's
    assert reply.buttons == ()  # not treated as a first contact
    assert service.count("GET", "/facts/") == 2  # both keys, once
    profile, sql_farm = await sql_profiles(session_factory, "tg:5")
    assert (profile.name, profile.expertise_level, profile.interaction_count) == (
        "Марія",
        "expert",
        18,
    )
    assert (sql_farm.farm_id, sql_farm.farm_name) == ("farm:marias", "Степове")
    await send(pipeline, session_factory, "дякую", user="tg:5")
    assert service.count("GET", "/facts/") == 2  # SQL knows them now: no more reads


async def test_new_user_asks_once_and_starts_from_defaults(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    loaded = await memory.profiles.load("tg:new")
    assert not loaded.known and not loaded.hydrated
    assert loaded.profile == UserProfile.default("tg:new")
    assert sorted(r.path for r in service.requests) == [
        "/facts/farm_profile:agromatrix:tg:new",
        "/facts/user_profile:agromatrix:tg:new",
    ]
    assert {r.user for r in service.requests} == {"stepan:tg:new"}  # the token's subject


async def test_garbage_answers_are_ignored(
    service: FakeMemoryService, make_memory: MakeMemory, session_factory: Factory
) -> None:
    # A high threshold keeps the breaker closed, so every garbage answer is read.
    memory = make_memory(threshold=1000)
    await service.set_mode("garbage")
    users = [f"tg:g{n}" for n in range(len(GET_GARBAGE))]
    for user in users:
        loaded = await asyncio.wait_for(memory.profiles.load(user), BOUND_S)
        assert not loaded.known and not loaded.degraded and not loaded.hydrated, user
        assert loaded.profile == UserProfile.default(user)
    # Each of the answers was seen, for both kinds of fact.
    assert service.count("GET", "/facts/") == 2 * len(GET_GARBAGE)
    async with session_factory() as session:
        assert (await session.execute(select(UserProfileRow))).first() is None


async def test_garbage_never_overwrites_sql(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    pipeline = make_pipeline(memory)
    for text in ("привіт", "дякую"):
        await send(pipeline, session_factory, text)
    await memory.editor.update_farm("tg:1", farm_name="Калинівка")
    await memory.sync.flush()  # the first flush also merged with the (absent) remote copy
    before = await sql_profiles(session_factory, "tg:1")
    await service.set_mode("garbage")

    await send(pipeline, session_factory, "хто я")
    result = await memory.sync.flush()

    # SQL knows the user: nothing is read from the service, garbage or not.
    assert not [r for r in service.requests if r.mode == "garbage" and r.method == "GET"]
    assert result.sent == 0 and result.pending > 0  # garbage is not an acknowledgement
    profile, farm = await sql_profiles(session_factory, "tg:1")
    assert farm == before[1]
    assert (profile.name, profile.interaction_count) == ("Оксана", 3)
    assert profile.known_intents == ["greeting", "thanks", "whoami"]


# -- the flush -------------------------------------------------------------------------------


async def test_flush_sends_each_change_once_in_order(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    pipeline = make_pipeline(memory)
    await send(pipeline, session_factory, "привіт")
    await memory.editor.update_farm("tg:1", current_phase="sowing")
    await memory.editor.update_user("tg:1", name="Оксана Петрівна")
    await memory.editor.update_farm("tg:1", current_phase="growing")
    await send(pipeline, session_factory, "привіт", user="tg:2")

    result = await memory.sync.flush()

    assert (result.sent, result.failed, result.pending) == (7, 0, 0)
    ops = applied_for(service, "tg:1")
    assert [(op, kind) for op, kind, _ in ops] == [
        ("upsert", "farm_profile"),
        ("upsert", "user_profile"),
        ("upsert", "farm_profile"),
        ("upsert", "user_profile"),
        ("upsert", "farm_profile"),
    ]
    assert [v["seasonal_context"]["current_phase"] for _, k, v in ops if k == "farm_profile"] == [
        None,
        "sowing",
        "growing",
    ]
    profile, farm = await sql_profiles(session_factory, "tg:1")
    assert service.fact("stepan:tg:1", user_fact_key("tg:1")) == profile.to_seed_json()
    assert service.fact("stepan:tg:1", farm_fact_key("tg:1")) == farm.to_seed_json()
    requests = service.count()
    assert await memory.sync.flush() == FlushResult(0, 0, 0)
    assert service.count() == requests  # sent rows are never sent again


async def test_consecutive_upserts_of_one_key_are_coalesced(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    pipeline = make_pipeline(memory)
    for _ in range(5):
        await send(pipeline, session_factory, "дякую")
    result = await memory.sync.flush()
    assert result.sent == 6  # farm + 5 user rows ...
    assert service.count("POST", "/facts/upsert") == 2  # ... in two calls
    user_value = service.fact("stepan:tg:1", user_fact_key("tg:1"))
    assert user_value is not None and user_value["interaction_count"] == 5


async def test_a_failing_user_waits_and_the_others_go_on(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    await memory.editor.update_user("tg:a", name="A")
    await memory.editor.update_user("tg:b", name="B")
    await memory.sync.flush()  # the first flush merges (nothing remote) and sends
    await memory.editor.update_user("tg:a", name="A2")
    await memory.editor.update_user("tg:b", name="B2")
    await memory.editor.update_farm("tg:a", farm_name="Ферма А")
    # tg:a's call meets an outage (both attempts): their later row must wait.
    service.answer_next("POST", "/facts/upsert", 503, times=2)

    result = await memory.sync.flush()

    assert service.fact("stepan:tg:b", user_fact_key("tg:b"))["name"] == "B2"  # type: ignore[index]
    assert service.fact("stepan:tg:a", user_fact_key("tg:a"))["name"] == "A"  # type: ignore[index]
    farm = service.fact("stepan:tg:a", farm_fact_key("tg:a"))
    assert farm is not None and farm["farm_name"] is None  # waits too
    assert result.failed == 1 and result.pending == 2
    stuck = (await pending_rows(session_factory))[0]
    assert stuck.attempts == 1 and "503" in (stuck.last_error or "") and stuck.state == "pending"

    result = await memory.sync.flush()
    assert result.pending == 0
    value = service.fact("stepan:tg:a", farm_fact_key("tg:a"))
    assert value is not None and value["farm_name"] == "Ферма А"


async def test_server_errors_are_retried_then_left_pending(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    await memory.editor.update_user("tg:1", name="Оксана")
    await service.set_mode("error500")
    result = await memory.sync.flush()
    # A new profile's first flush reads the remote copy first; that read fails after
    # 2 attempts, and nothing is written over a copy not read (both rows wait).
    assert service.count("GET", "/facts/") == 2 and service.count("POST") == 0
    assert (result.sent, result.failed, result.pending) == (0, 1, 2)
    rows = await pending_rows(session_factory)
    assert rows[0].attempts == 1 and rows[0].last_error == "HTTP 500"
    assert rows[1].attempts == 0
    await service.set_mode("healthy")
    assert (await memory.sync.flush()).pending == 0


async def test_forget_reaches_the_memory_service(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    pipeline = make_pipeline(memory)
    await send(pipeline, session_factory, "привіт")
    await flush_all(memory, session_factory)
    assert service.fact("stepan:tg:1", user_fact_key("tg:1")) is not None
    await memory.editor.forget("tg:1")
    result = await memory.sync.flush()
    assert result.sent == 3 and result.pending == 0  # two facts and the summaries
    assert service.fact("stepan:tg:1", user_fact_key("tg:1")) is None
    assert service.fact("stepan:tg:1", farm_fact_key("tg:1")) is None
    async with session_factory() as session:
        left = (await session.execute(select(OutboxRow).where(OutboxRow.user_id == "tg:1"))).all()
    assert left == []  # the delete rows went once they were delivered
    # ... and a returning user starts fresh: the old facts are gone, nothing to hydrate.
    assert not (await memory.profiles.load("tg:1")).known


# -- outages ---------------------------------------------------------------------------------


async def test_changes_made_while_down_arrive_after_recovery_once_in_order(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
    clock: ManualClock,
) -> None:
    pipeline = make_pipeline(memory)
    port = service.port
    await service.set_mode("down")

    await send(pipeline, session_factory, "привіт", user="tg:a")
    await send(pipeline, session_factory, "привіт", user="tg:b")
    await memory.editor.update_farm("tg:a", current_phase="sowing")
    await memory.editor.update_user("tg:a", name="Андрій")
    await send(pipeline, session_factory, "дякую", user="tg:a")
    await memory.editor.forget("tg:b")
    await send(pipeline, session_factory, "привіт", user="tg:b")

    # The farmers were answered; the flush fails until the breaker opens.
    while memory.sync.breaker_state == "closed":
        result = await memory.sync.flush()
        assert result.sent == 0 and result.pending > 0
    assert memory.sync.breaker_state == "open"

    await service.set_mode("healthy")
    assert service.port == port and service.count() == 0
    await memory.sync.flush()
    assert service.count() == 0  # still cooling down: not a single call
    clock.advance(COOLDOWN)
    result = await flush_all(memory, session_factory)
    assert result.pending == 0 and memory.sync.breaker_state == "closed"

    assert [(op, kind) for op, kind, _ in applied_for(service, "tg:a")] == [
        ("upsert", "farm_profile"),
        ("upsert", "user_profile"),
        ("upsert", "farm_profile"),
        ("upsert", "user_profile"),  # the rename and the next message, coalesced
    ]
    # tg:b's forget found nothing to delete (the service never had them: 404 = gone).
    assert [(op, kind) for op, kind, _ in applied_for(service, "tg:b")] == [
        ("upsert", "farm_profile"),
        ("upsert", "user_profile"),
    ]
    for user in ("tg:a", "tg:b"):
        profile, farm = await sql_profiles(session_factory, user)
        assert service.fact(f"stepan:{user}", user_fact_key(user)) == profile.to_seed_json()
        assert service.fact(f"stepan:{user}", farm_fact_key(user)) == farm.to_seed_json()
    value = service.fact("stepan:tg:a", user_fact_key("tg:a"))
    assert value is not None and value["name"] == "Андрій" and value["interaction_count"] == 2
    requests = service.count()
    await memory.sync.flush()
    assert service.count() == requests


async def test_down_service_costs_the_conversation_nothing(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
) -> None:
    pipeline = make_pipeline(memory)
    await service.set_mode("down")
    replies = [await send(pipeline, session_factory, "привіт", user=f"tg:{n}") for n in range(6)]
    assert all(r.intent == "greeting" and "Оксано" in r.text for r in replies)
    # Refused connections opened the breaker; the last new users were not even tried.
    assert memory.sync.breaker_state == "open"
    async with session_factory() as session:
        count = len((await session.execute(select(UserProfileRow))).all())
    assert count == 6


async def test_hanging_service_never_holds_a_conversation_once_the_breaker_is_open(
    service: FakeMemoryService,
    make_memory: MakeMemory,
    make_pipeline: MakePipeline,
    session_factory: Factory,
    clock: ManualClock,
) -> None:
    # A timeout long enough that a loaded CI machine still delivers each request to the
    # fake before the client gives up on it (the counts below are the point).
    memory = make_memory(threshold=2, attempts=1, timeout_s=0.5)
    pipeline = make_pipeline(memory)
    await service.set_mode("hanging")

    # Breaker closed: the new user's hydration gives up at the timeout; they are answered.
    reply = await send(pipeline, session_factory, "привіт", user="tg:first")
    assert reply.intent == "greeting"
    assert service.count("GET", "/facts/") == 2
    await memory.sync.flush()  # the second failure opens it
    assert memory.sync.breaker_state == "open"
    seen = service.count()

    # Open: new and known users alike are answered, and the service gets nothing.
    users = [f"tg:new{n}" for n in range(10)] + ["tg:first"] * 3
    replies = await asyncio.gather(*(send(pipeline, session_factory, "привіт", u) for u in users))
    assert all(r.intent == "greeting" for r in replies)
    assert (await memory.sync.flush()).sent == 0
    assert service.count() == seen

    # Cool-down over: conversations still never become the probe ...
    clock.advance(COOLDOWN)
    assert memory.sync.breaker_state == "half_open"
    await send(pipeline, session_factory, "привіт", user="tg:late")
    assert service.count() == seen
    # ... the flush sends exactly one probe, which hangs, and the breaker opens again.
    result = await asyncio.wait_for(memory.sync.flush(), BOUND_S)
    assert service.count() == seen + 1 and result.sent == 0
    assert memory.sync.breaker_state == "open"

    await service.set_mode("healthy")
    clock.advance(COOLDOWN)
    result = await flush_all(memory, session_factory)
    assert result.pending == 0 and memory.sync.breaker_state == "closed"
    for user in ("tg:first", "tg:new0", "tg:late"):
        profile, _ = await sql_profiles(session_factory, user)
        assert service.fact(f"stepan:{user}", user_fact_key(user)) == profile.to_seed_json()
    value = service.fact("stepan:tg:first", user_fact_key("tg:first"))
    assert value is not None and value["interaction_count"] == 4


async def test_idle_flush_probes_so_hydration_comes_back(
    service: FakeMemoryService,
    memory: Memory,
    session_factory: Factory,
    clock: ManualClock,
) -> None:
    await service.set_mode("error500")
    for n in range(3):
        await memory.profiles.load(f"tg:{n}")
    assert memory.sync.breaker_state == "open"
    await service.set_mode("healthy")
    clock.advance(COOLDOWN)
    # Nothing in the outbox, yet the flush checks the service and closes the breaker.
    assert await memory.sync.flush() == FlushResult(0, 0, 0)
    assert memory.sync.breaker_state == "closed"
    service.put_fact("stepan:tg:9", user_fact_key("tg:9"), UserProfile.default("tg:9")
                     .model_copy(update={"name": "Back"}).to_seed_json())  # fmt: skip
    loaded = await memory.profiles.load("tg:9")
    assert loaded.hydrated and loaded.profile.name == "Back"


def test_fact_keys_and_ids_follow_the_seed() -> None:
    assert user_fact_key("tg:1") == "user_profile:agromatrix:tg:1"
    assert farm_fact_key("tg:1") == "farm_profile:agromatrix:tg:1"
    assert datetime.now(UTC).tzinfo is UTC
