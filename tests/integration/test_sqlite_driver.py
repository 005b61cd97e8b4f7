"""aiosqlite with one trip to its thread per statement (db/sqlite_driver.py), through
the project's own engine: results, row counts, RETURNING, executemany and errors as
before, and each statement one call on the connection's thread (SQLAlchemy's adapter
over plain aiosqlite makes three or four)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from db import sqlite_driver
from db.engine import create_engine


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'driver.db'}")
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT UNIQUE)"))
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call made on a connection's thread, by the function's name."""
    seen: list[str] = []
    execute = sqlite_driver.OneHopConnection._execute

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(getattr(fn, "__name__", repr(fn)))
        return await execute(self, fn, *args, **kwargs)

    monkeypatch.setattr(sqlite_driver.OneHopConnection, "_execute", counted)
    return seen


async def test_statements_give_what_sqlite_gives(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        returned = await conn.execute(
            text("INSERT INTO t (x) VALUES (:x) RETURNING id, x"), {"x": "a\x00b"}
        )
        assert returned.all() == [(1, "ab")]  # NUL stripped (db/engine.py), row returned
        many = await conn.execute(text("INSERT INTO t (x) VALUES (:x)"), [{"x": "c"}, {"x": "d"}])
        assert many.rowcount == 2
        updated = await conn.execute(text("UPDATE t SET x = x || '!' WHERE id > 1"))
        assert updated.rowcount == 2
        rows = await conn.execute(text("SELECT id, x FROM t ORDER BY id"))
        assert rows.all() == [(1, "ab"), (2, "c!"), (3, "d!")]
        assert (await conn.execute(text("SELECT x FROM t WHERE id = 9"))).first() is None


async def test_an_error_is_sqlalchemys_and_the_connection_goes_on(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(text("INSERT INTO t (x) VALUES ('same')"))
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO t (x) VALUES ('other')"))
            await conn.execute(text("INSERT INTO t (x) VALUES ('same')"))
    async with engine.connect() as conn:  # rolled back as a whole, still usable
        assert (await conn.execute(text("SELECT x FROM t"))).scalars().all() == ["same"]


async def test_each_statement_is_one_trip_to_the_thread(
    engine: AsyncEngine, trips: list[str]
) -> None:
    async with engine.begin() as conn:
        await conn.execute(text("SELECT 1"))  # BEGIN IMMEDIATE, then the SELECT
        trips.clear()
        await conn.execute(text("SELECT id FROM t"))
        assert trips == ["statement"]
        trips.clear()
        await conn.execute(text("INSERT INTO t (x) VALUES (:x)"), [{"x": "1"}, {"x": "2"}])
        assert trips == ["statement"]
        trips.clear()
    assert trips == ["commit"]
