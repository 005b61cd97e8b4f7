"""Schema only through Alembic: stairway, models == migrations, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from db.engine import create_engine
from db.migrate import alembic_config, downgrade, upgrade
from db.models import Base


def _revisions(url: str) -> list[str]:
    script = ScriptDirectory.from_config(alembic_config(url))
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def _schema_diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(_diff)
    finally:
        await engine.dispose()


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def _stairway(url: str) -> None:
    previous = "base"
    for revision in _revisions(url):
        await asyncio.to_thread(upgrade, url, revision)
        await asyncio.to_thread(downgrade, url, previous)
        await asyncio.to_thread(upgrade, url, revision)
        previous = revision
    assert await _schema_diff(url) == []
    assert {"user_profiles", "farm_profiles", "interactions"} <= await _tables(url)
    await asyncio.to_thread(downgrade, url, "base")
    assert await _tables(url) <= {"alembic_version"}


async def test_stairway_sqlite(tmp_path: Path) -> None:
    await _stairway(f"sqlite+aiosqlite:///{tmp_path / 'stairs.db'}")


@pytest.mark.postgres
async def test_stairway_postgres(postgres_url: str) -> None:
    await _stairway(postgres_url)


async def test_models_match_migrations_sqlite(sqlite_url: str) -> None:
    assert await _schema_diff(sqlite_url) == []


@pytest.mark.postgres
async def test_models_match_migrations_postgres(postgres_url: str) -> None:
    await asyncio.to_thread(upgrade, postgres_url)
    assert await _schema_diff(postgres_url) == []
