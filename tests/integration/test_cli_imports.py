"""The command-line tools that are not the bot start without aiogram or CrewAI: each
runs in a fresh interpreter, does its real work (a migration, a memory-service call
over HTTP, the figures) and reports which heavy packages ended up in ``sys.modules``.
Run from the repository's root, where no ``.env`` holds other settings."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService

REPO = Path(__file__).resolve().parents[2]
#: Packages only the bot (aiogram) and the deep path (CrewAI, its LLM clients) need.
BOT_ONLY = ("aiogram", "crewai", "litellm", "openai")

SCRIPT = """
import json, sys
from bot.__main__ import main
code = main(sys.argv[1:])
loaded = sorted({name.split('.')[0] for name in sys.modules} & set(json.loads(sys.stdin.read())))
print(json.dumps({"code": code, "loaded": loaded}))
"""


@pytest.fixture
async def service() -> AsyncIterator[FakeMemoryService]:
    async with FakeMemoryService() as fake:
        yield fake


async def _stepan(env: dict[str, str], *argv: str) -> dict[str, object]:
    """``stepan ARGV`` in a new interpreter (asynchronously: the fake service this
    loop serves must keep answering); the last stdout line is the report."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SCRIPT,
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=REPO,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(json.dumps(BOT_ONLY).encode()), 180)
    assert process.returncode == 0, err.decode()
    report: dict[str, object] = json.loads(out.decode().strip().splitlines()[-1])
    return report


def _env(sqlite_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
    return {**env, "STEPAN_DATABASE_URL": sqlite_url, **extra}


async def test_migrate_imports_neither_aiogram_nor_crewai(tmp_path: Path) -> None:
    fresh = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    first = await _stepan(_env(fresh), "migrate")
    again = await _stepan(_env(fresh), "migrate")  # on a migrated database: nothing to do
    assert first == {"code": 0, "loaded": []}
    assert again == {"code": 0, "loaded": []}
    assert (tmp_path / "fresh.db").stat().st_size > 0


async def test_stats_and_rollups_import_neither_aiogram_nor_crewai(sqlite_url: str) -> None:
    for argv in (("stats", "--json"), ("stats", "--lang", "en"), ("rollups",)):
        assert await _stepan(_env(sqlite_url), *argv) == {"code": 0, "loaded": []}


async def test_memory_commands_import_neither_aiogram_nor_crewai(
    sqlite_url: str, service: FakeMemoryService
) -> None:
    env = _env(
        sqlite_url,
        AGX_MEMORY_SERVICE_URL=service.base_url,
        AGX_MEMORY_SERVICE_JWT_SECRET=JWT_SECRET,
        AGX_MEMORY_TEAM_ID="team-agro",
    )
    for argv in (("memory", "status"), ("memory", "sync"), ("memory", "retry-dead")):
        assert await _stepan(env, *argv) == {"code": 0, "loaded": []}
    # The commands really talked to the service (status asks for its health).
    assert service.requests


async def test_the_probe_sees_what_the_bot_imports(sqlite_url: str) -> None:
    """The check can fail: the bot and the deep path do load aiogram and CrewAI."""
    script = (
        "import json, sys\n"
        "import bot.cli.run, pipeline.crew.crewai_glue\n"
        "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules} & {'aiogram', 'crewai'})))"
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, cwd=REPO,
        env=_env(sqlite_url),
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 180)
    assert json.loads(out.decode().strip().splitlines()[-1]) == ["aiogram", "crewai"]
