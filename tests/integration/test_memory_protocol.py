"""The memory-service's real contract (issue 9) against the fake that follows it: the
bearer token, what each status does to an outbox row, the merge after a missed
hydration, /forget's tombstone (the dialog summaries are in test_memory_summaries.py).
Real HTTP on 127.0.0.1, a real migrated database; no timing assertions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import httpx
import jwt
import pytest
from pydantic import SecretStr

from db.models import OutboxRow, TombstoneRow, UserProfileRow
from db.uow import Database
from pipeline.admin.platform import LlmHealth, PlatformStatus
from pipeline.handle import Pipeline
from pipeline.memory import Memory
from pipeline.memory.service.auth import Credentials
from pipeline.profiles import farm_fact_key, user_fact_key
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService, ManualClock
from tests.integration import memory_world as world
from tests.integration.memory_world import (
    COOLDOWN,
    Factory,
    MakeMemory,
    rich_profile,
    rows,
    send,
    sql_user,
)

#: The memory-service world's fixtures: the fake, the clock, the client, the memory, the pipeline.
service, clock, http = world.service, world.clock, world.http
make_memory, memory, make_pipeline = world.make_memory, world.memory, world.make_pipeline


# -- 1. auth -------------------------------------------------------------------------------


async def test_every_call_carries_a_short_lived_jwt_for_its_farmer(
    service: FakeMemoryService, memory: Memory, make_pipeline: Callable[[Memory], Pipeline]
) -> None:
    await send(make_pipeline(memory), "привіт", user="tg:Олена")  # a non-ASCII user id
    await memory.sync.flush()
    assert service.requests and {r.user for r in service.requests} == {"stepan:tg:Олена"}
    assert service.fact("stepan:tg:Олена", user_fact_key("tg:Олена")) is not None


def test_the_token_is_hs256_with_subject_issuer_and_expiry() -> None:
    credentials = Credentials(jwt_secret=SecretStr(JWT_SECRET), clock=lambda: 1_000_000.0)
    header = credentials.headers("stepan:tg:Олена")["Authorization"]
    assert header.isascii() and header.startswith("Bearer ")
    claims = jwt.decode(
        header.removeprefix("Bearer "),
        JWT_SECRET,
        algorithms=["HS256"],
        options={"verify_exp": False},
    )
    assert claims["sub"] == "stepan:tg:Олена" and claims["iss"] == "stepan"
    assert 0 < claims["exp"] - 1_000_000 <= 600
    assert JWT_SECRET not in repr(credentials)


async def test_the_fake_refuses_missing_bad_and_expired_tokens(
    service: FakeMemoryService, http: httpx.AsyncClient
) -> None:
    url = service.base_url + "/facts/" + "user_profile%3Aagromatrix%3Atg%3A1"
    expired = jwt.encode(
        {"sub": "stepan:tg:1", "exp": int(time.time()) - 60}, JWT_SECRET, algorithm="HS256"
    )
    forged = jwt.encode(
        {"sub": "stepan:tg:1", "exp": int(time.time()) + 60}, "x" * 32, algorithm="HS256"
    )
    for headers in ({}, {"Authorization": f"Bearer {expired}"}, {"Authorization": forged}):
        answer = await http.get(url, headers=headers)
        assert answer.status_code == 401, headers
    good = Credentials(jwt_secret=SecretStr(JWT_SECRET)).headers("stepan:tg:1")
    answer = await http.get(url, headers=good)
    assert answer.status_code == 404 and answer.json() == {"detail": "Fact not found"}
    # Another farmer's fact: its id is not theirs to delete.
    fact_id = service.put_fact("stepan:tg:2", user_fact_key("tg:2"), {"x": 1})
    answer = await http.delete(f"{service.base_url}/facts/{fact_id}", headers=good)
    assert answer.status_code == 403
    # The seed's endpoints do not exist on the real service.
    answer = await http.post(service.base_url + "/facts/get", json={}, headers=good)
    assert answer.status_code == 405


async def test_a_static_token_is_sent_as_it_is(
    service: FakeMemoryService, make_memory: MakeMemory
) -> None:
    memory = make_memory(secret=None, token="static-token-1")
    await memory.editor.update_user("tg:s", name="Static")
    result = await memory.sync.flush()
    assert result.pending == 0
    assert service.fact("stepan:tg:s", user_fact_key("tg:s"))["name"] == "Static"  # type: ignore[index]


async def test_a_wrong_secret_keeps_the_rows_and_says_what_to_fix(
    service: FakeMemoryService,
    make_memory: MakeMemory,
    db: Database,
    http: httpx.AsyncClient,
    session_factory: Factory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    wrong = "wrong-secret-wrong-secret-wrong-secret"
    memory = make_memory(secret=wrong)
    caplog.set_level(logging.DEBUG)
    await memory.editor.update_user("tg:1", name="Оксана")
    await memory.editor.update_user("tg:2", name="Петро")

    for _ in range(5):
        result = await memory.sync.flush()
    assert result.sent == 0 and result.pending == 4
    assert memory.sync.breaker_state == "closed"  # the service is up: not an outage
    assert {r.state for r in await rows(session_factory)} <= {"pending", "config_error"}
    assert "config_error" in {r.state for r in await rows(session_factory)}
    status = await memory.sync.status()
    assert status.config_error is not None and "401" in status.config_error
    assert "AGX_MEMORY_SERVICE_JWT_SECRET" in status.config_error
    platform = PlatformStatus(
        db=db, sync=memory.sync, llm=LlmHealth(configured=False), http=http, integrations={}
    )
    check = next(c for c in await platform.collect() if c.name == "memory-service")
    assert check.state == "down" and "AGX_MEMORY_SERVICE_JWT_SECRET" in check.detail
    assert any("AGX_MEMORY_SERVICE_JWT_SECRET" in r.getMessage() for r in caplog.records)
    assert not any(wrong in r.getMessage() for r in caplog.records)

    # The operator fixes the secret: the kept rows go out, in order.
    fixed = make_memory()
    assert (await fixed.sync.flush()).pending == 0
    assert service.fact("stepan:tg:2", user_fact_key("tg:2"))["name"] == "Петро"  # type: ignore[index]
    assert (await fixed.sync.status()).config_error is None


# -- 3. status codes ---------------------------------------------------------------------


async def test_a_405_is_dead_lettered_and_the_next_upsert_goes_through(
    service: FakeMemoryService, memory: Memory, db: Database, session_factory: Factory
) -> None:
    await memory.editor.update_user("tg:1", name="Оксана")
    await memory.sync.flush()
    await memory.editor.update_user("tg:1", name="Оксана Петрівна")
    service.answer_next("POST", "/facts/upsert", 405, detail="Method Not Allowed")
    result = await memory.sync.flush()
    assert result.dead == 1 and result.pending == 0
    assert memory.sync.breaker_state == "closed"
    (dead,) = await rows(session_factory)
    assert dead.state == "dead" and "405" in (dead.last_error or "")

    await memory.editor.update_user("tg:1", name="Оксана П.")
    result = await memory.sync.flush()
    assert result.sent == 1
    assert service.fact("stepan:tg:1", user_fact_key("tg:1"))["name"] == "Оксана П."  # type: ignore[index]
    status = await memory.sync.status()
    assert status.counts["dead"] == 1 and "405" in status.dead[0].reason

    assert await memory.sync.retry_dead() == 1
    assert (await memory.sync.status()).counts == {"pending": 1, "config_error": 0, "dead": 0}


async def test_a_malformed_row_is_dead_and_holds_nobody_up(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    async with session_factory() as session:
        bad = ["not", "an", "object"]
        key = user_fact_key("tg:a")
        session.add(OutboxRow(user_id="tg:a", fact_key=key, operation="upsert", payload=bad))
        await session.commit()
    await memory.editor.update_user("tg:a", name="A")
    result = await memory.sync.flush()
    assert result.dead == 1 and result.pending == 0
    assert service.fact("stepan:tg:a", user_fact_key("tg:a"))["name"] == "A"  # type: ignore[index]


async def test_the_breaker_stays_closed_while_a_healthy_service_answers_404s(
    service: FakeMemoryService, memory: Memory, clock: ManualClock
) -> None:
    for n in range(20):
        loaded = await memory.profiles.load(f"tg:new{n}")
        assert not loaded.known and not loaded.degraded
    assert service.count("GET", "/facts/") == 40
    assert memory.sync.breaker_state == "closed"
    assert memory.sync.client is not None
    assert memory.sync.client.breaker.consecutive_failures == 0
    # The idle probe is GET /health.
    await service.set_mode("error500")
    for n in range(3):
        await memory.profiles.load(f"tg:down{n}")
    await service.set_mode("healthy")
    clock.advance(COOLDOWN)
    await memory.sync.flush()
    assert service.requests[-1].path == "/health" and memory.sync.breaker_state == "closed"


async def test_rows_left_when_the_breaker_opens_mid_flush_are_not_counted(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    for n in range(5):
        await memory.editor.update_user(f"tg:b{n}", name=f"B{n}")
    await memory.sync.flush()  # merged and sent
    for n in range(5):
        await memory.editor.update_user(f"tg:b{n}", name=f"B{n}!")
    await service.set_mode("error500")
    await memory.sync.flush()  # three users fail (threshold 3), then the breaker is open
    assert memory.sync.breaker_state == "open"
    attempts = sorted(r.attempts for r in await rows(session_factory))
    assert attempts == [0, 0, 1, 1, 1]  # the two never tried carry no failed attempt


# -- 4. no overwrite after a missed hydration ----------------------------------------------


async def test_a_missed_hydration_never_blanks_the_remote_copy(
    service: FakeMemoryService,
    make_memory: MakeMemory,
    make_pipeline: Callable[[Memory], Pipeline],
    session_factory: Factory,
) -> None:
    memory = make_memory(timeout_s=0.5)
    rich_profile(service, "tg:5")
    pipeline = make_pipeline(memory)
    await service.set_mode("hanging")
    await send(pipeline, "привіт", user="tg:5")  # hydration times out: a local default
    await service.set_mode("healthy")
    await send(pipeline, "дякую", user="tg:5")
    await send(pipeline, "привіт", user="tg:5")
    assert (await sql_user(session_factory, "tg:5")).name == "Оксана"  # type: ignore[union-attr]

    while (await memory.sync.flush()).sent:
        pass

    remote = service.fact("stepan:tg:5", user_fact_key("tg:5"))
    farm = service.fact("stepan:tg:5", farm_fact_key("tg:5"))
    assert remote is not None and farm is not None
    assert remote["name"] == "Марія Іванівна" and remote["expertise_level"] == "expert"
    assert remote["interaction_count"] == 14  # 11 remote + the 3 new ones
    assert remote["preferred_style"] == "brief"
    assert {"greeting", "recording", "thanks"} <= set(remote["known_intents"])
    assert farm["farm_name"] == "Степове" and farm["crop_ids"] == ["wheat", "sunflower"]
    assert farm["alert_thresholds"]["soil_moisture_min"] == 27.5
    # SQL holds the merge too, with its own farm id (its rows point at it).
    row = await sql_user(session_factory, "tg:5")
    assert row is not None and row.name == "Марія Іванівна" and row.interaction_count == 14
    assert row.remote_merge is None
    # No upsert ever carried the blank profile.
    names = [v["name"] for op, _, key, v in service.applied if v and key.startswith("user_")]
    assert "Оксана" not in names


async def test_a_local_edit_made_before_the_merge_wins(
    service: FakeMemoryService, make_memory: MakeMemory, session_factory: Factory
) -> None:
    rich_profile(service, "tg:6")
    memory = make_memory()
    await service.set_mode("error500")
    assert not (await memory.profiles.load("tg:6")).known
    await memory.editor.update_user("tg:6", preferred_style="detailed")
    await memory.editor.update_farm("tg:6", soil_moisture_min=31.0)
    await service.set_mode("healthy")
    while (await memory.sync.flush()).sent:
        pass
    remote = service.fact("stepan:tg:6", user_fact_key("tg:6"))
    farm = service.fact("stepan:tg:6", farm_fact_key("tg:6"))
    assert remote is not None and farm is not None
    assert remote["preferred_style"] == "detailed" and remote["name"] == "Марія Іванівна"
    assert farm["alert_thresholds"]["soil_moisture_min"] == 31.0
    assert farm["farm_name"] == "Степове"


async def test_the_merge_waits_while_the_copy_cannot_be_read(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    rich_profile(service, "tg:7")
    await service.set_mode("down")
    await memory.editor.update_user("tg:7", context_notes=["поле біля річки"])
    await memory.sync.flush()
    await service.set_mode("healthy")
    service.answer_next("GET", "/facts/", 405, times=10)
    result = await memory.sync.flush()
    assert result.sent == 0 and result.pending == 2  # kept, not dead, not written
    assert {r.state for r in await rows(session_factory, "tg:7")} == {"config_error", "pending"}
    assert service.fact("stepan:tg:7", user_fact_key("tg:7"))["name"] == "Марія Іванівна"  # type: ignore[index]


# -- 5. forget is final ---------------------------------------------------------------------


async def test_forget_then_write_before_the_flush_leaves_nothing_old(
    service: FakeMemoryService,
    memory: Memory,
    make_pipeline: Callable[[Memory], Pipeline],
    session_factory: Factory,
) -> None:
    rich_profile(service, "tg:8")
    pipeline = make_pipeline(memory)
    await send(pipeline, "привіт", user="tg:8")  # hydrated: SQL has Марія now
    assert (await sql_user(session_factory, "tg:8")).name == "Марія Іванівна"  # type: ignore[union-attr]
    await memory.editor.forget("tg:8")
    await send(pipeline, "привіт", user="tg:8")  # before any flush

    row = await sql_user(session_factory, "tg:8")
    assert row is not None and row.name == "Оксана" and row.interaction_count == 1
    assert row.remote_merge is None  # a new farmer: nothing to merge with
    while (await memory.sync.flush()).sent:
        pass

    remote = service.fact("stepan:tg:8", user_fact_key("tg:8"))
    farm = service.fact("stepan:tg:8", farm_fact_key("tg:8"))
    assert remote is not None and remote["name"] == "Оксана"
    assert remote["interaction_count"] == 1 and remote["expertise_level"] != "expert"
    assert farm is not None and farm["farm_name"] is None and farm["crop_ids"] == []
    async with session_factory() as session:
        grave = await session.get(TombstoneRow, "tg:8")
    assert grave is not None and grave.confirmed_at is not None

    # The database is lost and restored without the user: only the new copy comes back.
    async with session_factory() as session:
        await session.delete(await session.get(UserProfileRow, "tg:8"))
        await session.commit()
    memory.cache.invalidate("tg:8")
    loaded = await memory.profiles.load("tg:8")
    assert loaded.hydrated and loaded.profile.name == "Оксана"


async def test_a_tombstone_stops_hydration_until_the_delete_is_confirmed(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    rich_profile(service, "tg:9")
    await memory.profiles.load("tg:9")
    await service.set_mode("down")
    await memory.editor.forget("tg:9")
    await service.set_mode("healthy")
    reads = service.count("GET")
    loaded = await memory.profiles.load("tg:9")
    assert not loaded.known and loaded.profile.name is None
    assert service.count("GET") == reads  # not even asked
