"""``stepan memory status | sync | pull | retry-dead`` against the fake memory-service
over real HTTP and the test's migrated database (the commands build their own engine
and client from the settings, as the installed command does)."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.__main__ import _parser
from bot.cli import memory as memory_cli
from bot.config import Settings
from bot.wiring.memory import StaticTokenShared, build_memory_layer, refuse_shared_static_token
from bot.wiring.scheduler import JobRunner, default_jobs
from db.models import OutboxRow, UserProfileRow
from db.repositories import jobs
from db.uow import Database
from pipeline.clock import utcnow
from pipeline.memory import Memory, build_memory
from pipeline.memory.service.flush_lock import FLUSH_JOB_ID, FLUSH_LOCK_TTL, flush_lock
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key
from tests.conftest import make_settings
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService

Factory = async_sessionmaker[AsyncSession]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def service() -> AsyncIterator[FakeMemoryService]:
    async with FakeMemoryService() as fake:
        yield fake


@pytest.fixture
def cli_settings(sqlite_url: str, service: FakeMemoryService) -> Settings:
    return make_settings(
        sqlite_url,
        memory_service_url=service.base_url,
        memory_service_jwt_secret=JWT_SECRET,
        memory_team_id="team-agro",
    )


@pytest.fixture
async def memory(cli_settings: Settings, db: Database) -> AsyncIterator[Memory]:
    """The bot's side: the same settings, the same database."""
    async with httpx.AsyncClient() as http:
        yield build_memory_layer(cli_settings, db, http)


async def stepan_memory(settings: Settings, *argv: str) -> tuple[int, str]:
    args = _parser().parse_args(["memory", *argv])
    out = io.StringIO()
    code = await memory_cli.run(settings, args, out)
    return code, out.getvalue()


async def test_sync_prints_what_it_sent(
    cli_settings: Settings, memory: Memory, service: FakeMemoryService
) -> None:
    await memory.editor.update_user("tg:1", name="Оксана")
    code, out = await stepan_memory(cli_settings, "sync")
    assert code == 0
    assert "sent upsert user_profile:agromatrix:tg:1" in out
    assert "sent upsert farm_profile:agromatrix:tg:1" in out
    assert "pending 0" in out
    assert service.fact("stepan:tg:1", user_fact_key("tg:1"))["name"] == "Оксана"  # type: ignore[index]


async def test_status_shows_the_backlog_by_state_and_dead_letters(
    cli_settings: Settings, memory: Memory, service: FakeMemoryService
) -> None:
    await memory.editor.update_user("tg:1", name="Оксана")
    await memory.sync.flush()
    await memory.editor.update_user("tg:1", name="Оксана П.")
    service.answer_next("POST", "/facts/upsert", 422, detail="fact_value_json: bad")
    await memory.sync.flush()
    await memory.editor.update_user("tg:2", name="Петро")

    code, out = await stepan_memory(cli_settings, "status")
    assert code == 1  # a dead letter needs an operator
    assert "health: ok" in out and "token: jwt" in out
    assert "pending 2, config_error 0, dead 1" in out
    assert "upsert user_profile:agromatrix:tg:1: HTTP 422" in out
    assert JWT_SECRET not in out

    code, out = await stepan_memory(cli_settings, "retry-dead")
    assert code == 0 and "requeued 1" in out
    code, out = await stepan_memory(cli_settings, "sync")
    code, out = await stepan_memory(cli_settings, "status")
    assert code == 0 and "pending 0, config_error 0, dead 0" in out
    await service.set_mode("down")
    code, out = await stepan_memory(cli_settings, "status")
    assert code == 1 and "health: ConnectError" in out


async def test_status_names_the_setting_when_the_secret_is_wrong(
    sqlite_url: str, memory: Memory, service: FakeMemoryService
) -> None:
    wrong = make_settings(
        sqlite_url,
        memory_service_url=service.base_url,
        memory_service_jwt_secret="not-the-secret-not-the-secret-not-it",
    )
    await memory.editor.update_user("tg:1", name="Оксана")
    code, out = await stepan_memory(wrong, "sync")
    assert code == 1 and "AGX_MEMORY_SERVICE_JWT_SECRET" in out
    code, out = await stepan_memory(wrong, "status")
    assert "config_error" in out and "401" in out and "AGX_MEMORY_SERVICE_JWT_SECRET" in out


async def test_pull_hydrates_one_farmer_and_prints_the_changes(
    cli_settings: Settings,
    memory: Memory,
    service: FakeMemoryService,
    session_factory: Factory,
) -> None:
    await memory.editor.update_user("tg:7", name="Оксана")
    await stepan_memory(cli_settings, "sync")
    remote = UserProfile.default("tg:7").model_copy(
        update={"name": "Марія", "expertise_level": "expert", "interaction_count": 40}
    )
    service.put_fact("stepan:tg:7", user_fact_key("tg:7"), remote.to_seed_json())
    farm = FarmProfile(farm_id="farm:other", user_id="tg:7", farm_name="Степове")
    service.put_fact("stepan:tg:7", farm_fact_key("tg:7"), farm.to_seed_json())

    code, out = await stepan_memory(cli_settings, "pull", "7")  # a bare Telegram id
    assert code == 0, out
    assert "user.name: 'Оксана' -> 'Марія'" in out
    assert "user.interaction_count: 0 -> 40" in out
    assert "farm.farm_name: None -> 'Степове'" in out
    async with session_factory() as session:
        row = await session.get(UserProfileRow, "tg:7")
    assert row is not None and (row.name, row.expertise_level) == ("Марія", "expert")


async def test_pull_refuses_while_newer_changes_are_unsent(
    cli_settings: Settings, memory: Memory, session_factory: Factory
) -> None:
    await memory.editor.update_user("tg:8", name="Оксана")
    code, out = await stepan_memory(cli_settings, "pull", "tg:8")
    assert code == 1 and "unsent" in out
    async with session_factory() as session:
        left = (await session.execute(select(OutboxRow))).scalars().all()
    assert left  # nothing was touched


def test_the_commands_parse() -> None:
    args = _parser().parse_args(["memory", "pull", "tg:5"])
    assert isinstance(args, argparse.Namespace)
    assert (args.command, args.memory_command, args.user_id) == ("memory", "pull", "tg:5")
    with pytest.raises(SystemExit):
        _parser().parse_args(["memory", "nope"])


# -- one flusher at a time (issue 29 point 8) ----------------------------------------------


async def test_sync_sends_nothing_and_exits_3_while_the_flush_lock_is_held(
    cli_settings: Settings, memory: Memory, service: FakeMemoryService, db: Database
) -> None:
    await memory.editor.update_user("tg:1", name="Оксана")
    now = utcnow()
    async with db.write() as session:  # the bot's scheduled flush is running
        assert await jobs.try_lock(session, FLUSH_JOB_ID, "bot:1", now, now + FLUSH_LOCK_TTL)
    code, out = await stepan_memory(cli_settings, "sync")
    assert code == 3 and "another flush is running" in out
    assert service.count("POST") == 0

    async with db.write() as session:
        await jobs.finish(session, FLUSH_JOB_ID, "bot:1", utcnow(), "ok", "sent 0")
    code, out = await stepan_memory(cli_settings, "sync")
    assert code == 0 and "sent upsert user_profile:agromatrix:tg:1" in out
    async with db.read() as session:
        runs = {run.job_id: run for run in await jobs.all_runs(session)}
    assert (runs[FLUSH_JOB_ID].last_detail or "").startswith("stepan memory sync: sent 2")
    later = utcnow()
    async with db.write() as session:  # released: the bot's next run gets it
        assert await jobs.try_lock(session, FLUSH_JOB_ID, "bot:1", later, later + FLUSH_LOCK_TTL)


async def test_the_scheduled_flush_skips_while_stepan_memory_sync_holds_the_lock(
    memory: Memory, db: Database
) -> None:
    specs = default_jobs(db, sweep=memory.sweep, cache=memory.cache, sync=memory.sync)
    flush = next(spec for spec in specs if spec.job_id == FLUSH_JOB_ID)
    await memory.editor.update_user("tg:1", name="Оксана")
    async with flush_lock(db, "stepan memory sync test", utcnow) as held:
        assert await JobRunner(db, "bot:1").run(flush) == "skipped"
        held.outcome, held.detail = "ok", "test"
    assert await memory.sync.backlog() == 2  # the job sent nothing
    # The next slot (30 s on), with the lock released: the job runs.
    next_slot = JobRunner(db, "bot:1", clock=lambda: utcnow() + timedelta(seconds=30))
    assert await next_slot.run(flush) == "ok"
    assert await memory.sync.backlog() == 0


async def test_status_names_the_url_when_the_base_path_is_wrong(
    sqlite_url: str, service: FakeMemoryService
) -> None:
    settings = make_settings(
        sqlite_url,
        memory_service_url=service.base_url + "/api",
        memory_service_jwt_secret=JWT_SECRET,
    )
    code, out = await stepan_memory(settings, "status")
    assert code == 1
    assert "health: HTTP 404: Not Found - check AGX_MEMORY_SERVICE_URL" in out


# -- a static token is single-subject (issue 29 point 8) -----------------------------------


def _static_settings(sqlite_url: str, service: FakeMemoryService) -> Settings:
    return make_settings(
        sqlite_url, memory_service_url=service.base_url, memory_service_token="static-token-1"
    )


async def test_a_static_token_is_refused_when_two_farmers_would_sync_with_it(
    sqlite_url: str, service: FakeMemoryService, db: Database
) -> None:
    settings = _static_settings(sqlite_url, service)
    editor = build_memory(db).editor
    await editor.update_user("tg:1", name="Оксана")
    code, out = await stepan_memory(settings, "status")
    assert code != 2, out  # one farmer: the token may act for them

    await editor.update_user("tg:2", name="Петро")
    for command in ("status", "sync"):
        code, out = await stepan_memory(settings, command)
        assert code == 2 and "AGX_MEMORY_SERVICE_TOKEN is a static token" in out
        assert "AGX_MEMORY_SERVICE_JWT_SECRET" in out
    with pytest.raises(StaticTokenShared):
        await refuse_shared_static_token(settings)
    # With a JWT secret as well, the JWT is used (a token per farmer): nothing refused.
    both = make_settings(
        sqlite_url,
        memory_service_url=service.base_url,
        memory_service_token="static-token-1",
        memory_service_jwt_secret=JWT_SECRET,
    )
    await refuse_shared_static_token(both)


async def test_stepan_run_refuses_a_shared_static_token_at_start_up(
    sqlite_url: str, service: FakeMemoryService, db: Database
) -> None:
    editor = build_memory(db).editor
    for user in ("tg:1", "tg:2"):
        await editor.update_user(user, name="Фермер")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
    env |= {
        "STEPAN_DATABASE_URL": sqlite_url,
        "STEPAN_BOT_TOKEN": "123456:TEST-token-for-a-start-that-is-refused",
        # Nothing answers here: the start must end before any Bot API call.
        "STEPAN_TELEGRAM_API_URL": "http://127.0.0.1:9",
        "STEPAN_WEATHER_URL": "off",
        "AGX_MEMORY_SERVICE_URL": service.base_url,
        "AGX_MEMORY_SERVICE_TOKEN": "static-token-1",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=REPO, env=env,
    )  # fmt: skip
    _out, err = await asyncio.wait_for(process.communicate(), 180)
    assert process.returncode == 2, err.decode()
    assert "configuration error: AGX_MEMORY_SERVICE_TOKEN is a static token" in err.decode()
