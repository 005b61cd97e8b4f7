"""``stepan memory status | sync | pull | retry-dead`` against the fake memory-service
over real HTTP and the test's migrated database (the commands build their own engine
and client from the settings, as the installed command does)."""

from __future__ import annotations

import argparse
import io
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.__main__ import _parser
from bot.cli import memory as memory_cli
from bot.config import Settings
from bot.wiring.memory import build_memory_layer
from db.models import OutboxRow, UserProfileRow
from db.uow import Database
from pipeline.memory import Memory
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key
from tests.conftest import make_settings
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService

Factory = async_sessionmaker[AsyncSession]


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
