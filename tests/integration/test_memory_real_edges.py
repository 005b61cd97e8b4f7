"""The real memory-service's edges (issue 29 point 8) against the fake that now has
them: duplicate rows of one key (no unique key, racing upserts), FastAPI's route 404
against the service's own "Fact not found", the JWT's clock skew, ``meta`` (an
unknown ``metadata`` dropped), summaries purged whatever the team setting is now, a
static token's single subject, and the farm's timezone and region in its copy.
Real HTTP on 127.0.0.1, a real migrated database; no timing assertions."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import httpx
import jwt
import pytest
from pydantic import SecretStr

from db.models import TombstoneRow
from db.repositories import farm as farm_repo
from db.repositories.profiles import delete_user_data
from db.uow import Database
from pipeline.agronomy.region import FarmRegions
from pipeline.memory import DialogSummary, Memory
from pipeline.memory.service import summaries
from pipeline.memory.service.auth import Credentials
from pipeline.memory.service.merging import merge_farm
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key
from pipeline.rulebook import Rulebook
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService
from tests.integration import memory_world as world
from tests.integration.memory_world import Factory, MakeMemory, rich_profile, rows

#: The memory-service world's fixtures: the fake, the clock, the client, the memory.
service, clock, http = world.service, world.clock, world.http
make_memory, memory = world.make_memory, world.memory

START = datetime(2026, 5, 1, 8, tzinfo=UTC)


async def _flush_all(memory: Memory) -> None:
    for _ in range(10):
        if not (await memory.sync.flush()).sent:
            return


async def _tombstone(session_factory: Factory, user: str) -> TombstoneRow | None:
    async with session_factory() as session:
        return await session.get(TombstoneRow, user)


# -- duplicate rows -------------------------------------------------------------------------


async def test_racing_upserts_leave_two_rows_and_get_answers_the_first(
    service: FakeMemoryService, memory: Memory
) -> None:
    client = memory.sync.client
    assert client is not None
    service.race_upserts(2)
    key = user_fact_key("tg:20")
    first, second = await asyncio.gather(
        client.upsert("tg:20", key, {"n": 1}), client.upsert("tg:20", key, {"n": 2})
    )
    assert first.status == second.status == "ok"
    assert first.value["created"] and second.value["created"]  # both inserted
    stored = service.rows("stepan:tg:20", key)
    assert len(stored) == 2
    assert service.fact("stepan:tg:20", key) == stored[0]["fact_value_json"]

    assert (await client.delete("tg:20", key)).status == "ok"
    assert service.rows("stepan:tg:20", key) == []


async def test_forget_deletes_every_row_so_no_duplicate_comes_back(
    service: FakeMemoryService, memory: Memory, session_factory: Factory
) -> None:
    rich_profile(service, "tg:21")
    await memory.profiles.load("tg:21")  # hydrated from the service's copy
    twin = UserProfile.default("tg:21").model_copy(update={"name": "Двійник"})
    for key in (user_fact_key("tg:21"), farm_fact_key("tg:21")):
        service.put_fact("stepan:tg:21", key, twin.to_seed_json(), duplicate=True)
    assert len(service.rows("stepan:tg:21", user_fact_key("tg:21"))) == 2

    await memory.editor.forget("tg:21")
    await _flush_all(memory)

    for key in (user_fact_key("tg:21"), farm_fact_key("tg:21")):
        assert service.rows("stepan:tg:21", key) == []
    grave = await _tombstone(session_factory, "tg:21")
    assert grave is not None and grave.confirmed_at is not None
    memory.cache.invalidate("tg:21")
    loaded = await memory.profiles.load("tg:21")
    assert not loaded.hydrated and loaded.profile.name is None


# -- 404: the fact's own, or a route the service lacks --------------------------------------


async def test_unknown_routes_get_fastapis_json_404_and_405(
    service: FakeMemoryService, http: httpx.AsyncClient
) -> None:
    good = Credentials(jwt_secret=SecretStr(JWT_SECRET)).headers("stepan:tg:1")
    answer = await http.get(service.base_url + "/api/facts/k", headers=good)
    assert answer.status_code == 404 and answer.json() == {"detail": "Not Found"}
    answer = await http.get(service.base_url + "/facts/k", headers=good)
    assert answer.status_code == 404 and answer.json() == {"detail": "Fact not found"}
    answer = await http.post(service.base_url + "/facts/get", json={}, headers=good)
    assert answer.status_code == 405 and answer.json() == {"detail": "Method Not Allowed"}
    assert service.count("GET", "/api/") == 1


async def test_a_forget_through_a_wrong_base_path_is_not_reported_done(
    service: FakeMemoryService,
    make_memory: MakeMemory,
    session_factory: Factory,
) -> None:
    rich_profile(service, "tg:22")
    wrong = make_memory(path="/api")
    await wrong.editor.update_user("tg:22", name="Ганна")
    await wrong.editor.forget("tg:22")
    await _flush_all(wrong)

    grave = await _tombstone(session_factory, "tg:22")
    assert grave is not None and grave.confirmed_at is None  # not done
    left = await rows(session_factory, "tg:22")
    # Both deletes and the purge kept; the first waits as a configuration error.
    assert [row.operation for row in left] == ["delete", "delete", "summary_purge"]
    assert left[0].state == "config_error"
    status = await wrong.sync.status()
    assert status.config_error is not None and "AGX_MEMORY_SERVICE_URL" in status.config_error
    assert "Not Found" in status.config_error and not status.healthy
    assert service.fact("stepan:tg:22", user_fact_key("tg:22")) is not None  # still there


async def test_a_wrong_base_path_is_not_taken_for_an_empty_service(
    service: FakeMemoryService, make_memory: MakeMemory
) -> None:
    rich_profile(service, "tg:23")
    wrong = make_memory(path="/api")
    loaded = await wrong.profiles.load("tg:23")
    # Unknown, not "no copy": the profile is made with a merge marker, not as new.
    assert not loaded.hydrated
    client = wrong.sync.client
    assert client is not None and "AGX_MEMORY_SERVICE_URL" in (client.config_error or "")


# -- the JWT and clock skew -----------------------------------------------------------------


@pytest.mark.parametrize("ahead_s", [1.0, 20.0])
async def test_a_stepan_clock_ahead_of_the_service_still_gets_in(
    service: FakeMemoryService, make_memory: MakeMemory, ahead_s: float
) -> None:
    memory = make_memory(ahead_s=ahead_s)
    await memory.editor.update_user("tg:24", name="Олег")
    result = await memory.sync.flush()
    assert result.pending == 0 and result.failed == 0
    assert service.fact("stepan:tg:24", user_fact_key("tg:24"))["name"] == "Олег"  # type: ignore[index]


async def test_a_clock_beyond_the_documented_skew_is_refused(
    service: FakeMemoryService, make_memory: MakeMemory
) -> None:
    memory = make_memory(ahead_s=45.0)  # more than the 30 s iat is dated back
    await memory.editor.update_user("tg:25", name="Олег")
    await memory.sync.flush()
    client = memory.sync.client
    assert client is not None and "HTTP 401" in (client.config_error or "")


async def test_the_fake_checks_iat_with_pyjwts_leeway(http: httpx.AsyncClient) -> None:
    now = int(time.time())
    ahead = jwt.encode(
        {"sub": "stepan:tg:1", "iat": now + 10, "exp": now + 300}, JWT_SECRET, algorithm="HS256"
    )
    url = "/facts/k"
    for leeway, status in ((0, 401), (15, 404)):
        async with FakeMemoryService(leeway_s=leeway) as fake:
            answer = await http.get(
                fake.base_url + url, headers={"Authorization": f"Bearer {ahead}"}
            )
            assert answer.status_code == status, leeway


def test_the_token_is_dated_back_by_the_documented_skew() -> None:
    credentials = Credentials(jwt_secret=SecretStr(JWT_SECRET), clock=lambda: 1_000_000.0)
    token = credentials.headers("stepan:tg:1")["Authorization"].removeprefix("Bearer ")
    claims = jwt.decode(token, JWT_SECRET, algorithms=["HS256"], options={"verify_exp": False})
    assert claims["iat"] == 1_000_000 - 30 and claims["exp"] == 1_000_000 + 300


# -- meta, not metadata ---------------------------------------------------------------------


async def test_summaries_send_meta_and_the_service_drops_unknown_fields(
    service: FakeMemoryService, memory: Memory, db: Database, http: httpx.AsyncClient
) -> None:
    async with db.write() as session:
        memory.summaries.queue(session, "tg:26", DialogSummary(START, START, "Полив"), START)
    assert (await memory.sync.flush()).sent == 1
    (stored,) = service.summaries_of("stepan:tg:26")
    assert stored["meta"] == {"source": "stepan"} and "metadata" not in stored

    # The service's schema ignores fields it lacks, as pydantic does.
    good = Credentials(jwt_secret=SecretStr(JWT_SECRET)).headers("stepan:tg:27")
    body = {"team_id": "t", "period_start": START.isoformat(), "period_end": START.isoformat(),
            "summary_text": "x", "user_id": "stepan:tg:27", "metadata": {"a": 1}}  # fmt: skip
    answer = await http.post(service.base_url + "/summaries", json=body, headers=good)
    assert answer.status_code == 200 and answer.json()["meta"] == {}
    assert "metadata" not in service.summaries_of("stepan:tg:27")[0]


# -- purge, team or not ---------------------------------------------------------------------


async def test_forget_purges_summaries_written_under_a_team_when_none_is_set_now(
    service: FakeMemoryService, make_memory: MakeMemory, db: Database, session_factory: Factory
) -> None:
    earlier = make_memory()  # AGX_MEMORY_TEAM_ID was set when these were written
    async with db.write() as session:
        for user in ("tg:28", "tg:29"):
            summary = DialogSummary(START, START + timedelta(hours=1), f"Полив {user}")
            earlier.summaries.queue(session, user, summary, START)
    assert (await earlier.sync.flush()).sent == 2

    now = make_memory(team=None)
    await now.editor.forget("tg:28")
    await _flush_all(now)
    assert service.summaries_of("stepan:tg:28") == []
    assert len(service.summaries_of("stepan:tg:29")) == 1  # another farmer's stay
    grave = await _tombstone(session_factory, "tg:28")
    assert grave is not None and grave.confirmed_at is not None


# -- a static token acts for one subject ----------------------------------------------------


async def test_a_static_tokens_second_farmer_is_told_the_token_is_single_subject(
    service: FakeMemoryService, make_memory: MakeMemory
) -> None:
    memory = make_memory(secret=None, token="static-token-1")  # the token is stepan:tg:s's
    await memory.editor.update_user("tg:s", name="Єдиний")
    await memory.editor.update_user("tg:30", name="Другий")
    await memory.sync.flush()
    assert service.fact("stepan:tg:s", user_fact_key("tg:s")) is not None
    client = memory.sync.client
    assert client is not None and "HTTP 403" in (client.config_error or "")
    assert "a static token acts for one farmer only" in (client.config_error or "")


# -- the farm's timezone and region travel with its copy ------------------------------------


async def test_the_farm_copy_carries_timezone_and_region_and_hydration_restores_them(
    service: FakeMemoryService, memory: Memory, rules: Rulebook, session_factory: Factory
) -> None:
    regions = FarmRegions(rules.knowledge, memory.editor)
    poltava = regions.read("Полтавська")
    assert poltava is not None
    await memory.editor.update_user("tg:31", name="Ірина")
    await memory.editor.update_farm("tg:31", timezone="Europe/Warsaw")
    assert await regions.set("tg:31", poltava)  # an oblast chosen by the farmer
    await _flush_all(memory)
    copy = service.fact("stepan:tg:31", farm_fact_key("tg:31"))
    assert copy is not None
    assert (copy["timezone"], copy["region"]) == ("Europe/Warsaw", poltava.id)

    # The database is lost: the farm comes back from the copy with both.
    async with session_factory() as session:
        await delete_user_data(session, "tg:31")
        await session.commit()
    memory.cache.invalidate("tg:31")
    loaded = await memory.profiles.load("tg:31")
    assert loaded.hydrated
    assert (loaded.farm.timezone, loaded.farm.region) == ("Europe/Warsaw", poltava.id)
    async with session_factory() as session:
        assert await farm_repo.region_of_user(session, "tg:31") == poltava.id


async def test_an_old_farm_copy_without_timezone_and_region_still_loads(
    service: FakeMemoryService, memory: Memory
) -> None:
    farm = FarmProfile(farm_id="farm:old", user_id="tg:32", farm_name="Старе")
    old = {k: v for k, v in farm.to_seed_json().items() if k not in ("timezone", "region")}
    service.put_fact(
        "stepan:tg:32", user_fact_key("tg:32"), UserProfile.default("tg:32").to_seed_json()
    )
    service.put_fact("stepan:tg:32", farm_fact_key("tg:32"), old)
    loaded = await memory.profiles.load("tg:32")
    assert loaded.hydrated and loaded.farm.farm_name == "Старе"
    assert (loaded.farm.timezone, loaded.farm.region) == ("Europe/Kyiv", None)


def test_a_merge_keeps_the_local_timezone_and_region_an_old_copy_lacks() -> None:
    local = FarmProfile(user_id="tg:33", timezone="Europe/Warsaw", region="poltava")
    old = {k: v for k, v in local.to_seed_json().items() if k not in ("timezone", "region")}
    remote = FarmProfile.from_seed_json(old | {"farm_name": "Віддалене"}, "tg:33")
    merged = merge_farm(local, remote, [], START)
    assert (merged.farm_name, merged.timezone, merged.region) == (
        "Віддалене", "Europe/Warsaw", "poltava",
    )  # fmt: skip
    newer = FarmProfile.from_seed_json(local.to_seed_json() | {"region": "kharkiv"}, "tg:33")
    assert merge_farm(local, newer, [], START).region == "kharkiv"  # a copy that has it wins


async def test_only_summary_not_found_means_a_summary_is_gone(
    service: FakeMemoryService, make_memory: MakeMemory
) -> None:
    right, wrong = make_memory().sync.client, make_memory(path="/api").sync.client
    assert right is not None and wrong is not None
    assert (await summaries.delete(right, "tg:34", "no-such-id")).status == "ok"
    outcome = await summaries.delete(wrong, "tg:34", "no-such-id")
    assert outcome.status == "config_error"
    assert "AGX_MEMORY_SERVICE_URL" in (wrong.config_error or "")
    assert (await summaries.purge(wrong, "tg:34")).status == "config_error"


async def test_a_summary_written_under_a_team_is_deleted_when_none_is_set_now(
    service: FakeMemoryService, make_memory: MakeMemory, db: Database
) -> None:
    earlier = make_memory()
    summary = DialogSummary(START, START, "Полив", data={"stepan_key": "k-35"})
    async with db.write() as session:
        earlier.summaries.queue(session, "tg:35", summary, START)
    assert (await earlier.sync.flush()).sent == 1

    now = make_memory(team=None)
    async with db.write() as session:
        now.summaries.queue_delete(session, "tg:35", summaries.STEPAN_KEY + "k-35", START)
    await _flush_all(now)
    assert service.summaries_of("stepan:tg:35") == []
