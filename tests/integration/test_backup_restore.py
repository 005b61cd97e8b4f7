"""docs/DEPLOY.md's backup and restore, done: pg_dump a database the bot is using,
pg_restore it into a fresh database, and the bot goes on there (profiles, counters,
journal and the inbox's memory of handled updates intact)."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiogram.types import Update
from sqlalchemy import func, select

from bot.local.session import LocalBot
from bot.transport.serving import build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import OperationRow, UserProfileRow
from tests.conftest import _throwaway_database, make_settings

pytestmark = [pytest.mark.postgres]


@pytest.fixture(autouse=True)
def pg_tools() -> None:
    """pg_dump and pg_restore come with the PostgreSQL client: in CI (where .ci/run starts
    PostgreSQL) a missing one is a failure; on a laptop without them the test is skipped,
    saying why."""
    missing = [tool for tool in ("pg_dump", "pg_restore") if shutil.which(tool) is None]
    if not missing:
        return
    problem = f"{', '.join(missing)} not installed (the PostgreSQL client tools)"
    if os.environ.get("CI"):
        pytest.fail(f"required in CI: {problem}")
    pytest.skip(reason=problem)


FARMER = 6060


def libpq(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


async def run(*argv: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, err = await proc.communicate()
    assert proc.returncode == 0, (argv[0], err.decode(errors="replace"))


@pytest.fixture
async def fresh_postgres_url() -> AsyncIterator[str]:
    async with _throwaway_database() as url:
        yield url


async def feed(tg: LocalBot, update_id: int, raw: dict[str, Any]) -> list[str]:
    since = len(tg.session.calls)
    update = Update.model_validate({"update_id": update_id, **raw}, context={"bot": tg.bot})
    await tg.dispatcher.feed_update(tg.bot, update)
    return [call.method for call in tg.session.since(since)]


def say(tg: LocalBot, text: str) -> dict[str, Any]:
    return tg.telegram.message_update(FARMER, tg.telegram.text_fields(text), first_name="Леся")


async def bot_on(url: str) -> tuple[Core, LocalBot]:
    core = build_core(make_settings(url))
    dispatcher = build_dispatcher(core)
    build_inbox(core, dispatcher)
    return core, LocalBot(dispatcher)


async def test_a_backup_restored_into_a_fresh_database_carries_on(
    migrated_postgres_url: str, fresh_postgres_url: str, tmp_path: Path
) -> None:
    core, tg = await bot_on(migrated_postgres_url)
    try:
        assert await feed(tg, 1, say(tg, "привіт")) == ["sendMessage"]
        await feed(tg, 2, say(tg, "запиши полив 20 мм на полі 3"))
        [card] = [c for c in tg.session.calls if c.method == "sendMessage"][-1:]
        write = card.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        press = tg.telegram.callback_update(FARMER, write, message_id=card.result["message_id"])
        await feed(tg, 3, press)
    finally:
        await core.close()
    dump = tmp_path / "stepan.dump"
    await run("pg_dump", "--format=custom", f"--file={dump}", libpq(migrated_postgres_url))
    await run("pg_restore", "--no-owner", f"--dbname={libpq(fresh_postgres_url)}", str(dump))

    core, tg = await bot_on(fresh_postgres_url)
    try:
        # An update handled before the backup is still known: dropped.
        assert await feed(tg, 1, say(tg, "привіт")) == []
        assert await feed(tg, 4, say(tg, "дякую")) == ["sendMessage"]
        async with core.db.read() as session:
            user = await session.get(UserProfileRow, f"tg:{FARMER}")
            operations = await session.scalar(select(func.count()).select_from(OperationRow))
        assert user is not None and user.interaction_count == 3
        assert operations == 1
    finally:
        await core.close()
