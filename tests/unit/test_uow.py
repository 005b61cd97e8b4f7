"""db.uow.Database: writes commit, failures roll back, reads never commit."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from db.uow import Database


async def _count(db: Database) -> int:
    async with db.read() as session:
        return int((await session.execute(text("SELECT count(*) FROM job_runs"))).scalar_one())


async def _insert(statement: str, db: Database) -> None:
    async with db.write() as session:
        await session.execute(text(statement))


INSERT = "INSERT INTO job_runs (job_id, locked_by, runs) VALUES ('uow-test', 'me', 0)"


async def test_write_commits_and_read_sees_it(engine: AsyncEngine) -> None:
    db = Database.of(engine)
    before = await _count(db)
    await _insert(INSERT, db)
    assert await _count(db) == before + 1


async def test_write_rolls_back_when_the_block_raises(engine: AsyncEngine) -> None:
    db = Database.of(engine)
    before = await _count(db)
    with pytest.raises(RuntimeError):
        async with db.write() as session:
            await session.execute(text(INSERT))
            raise RuntimeError("boom")
    assert await _count(db) == before


async def test_read_never_commits(engine: AsyncEngine) -> None:
    db = Database.of(engine)
    before = await _count(db)
    async with db.read() as session:
        await session.execute(text(INSERT))
    assert await _count(db) == before


async def test_rows_read_stay_usable_after_the_read(engine: AsyncEngine) -> None:
    # A read ends by closing its session (no commit, no rollback that would expire
    # the rows): services return what they read to callers outside the block.
    from db.models import JobRunRow

    db = Database.of(engine)
    await _insert(INSERT, db)
    async with db.read() as session:
        row = await session.get(JobRunRow, "uow-test")
    assert row is not None and row.locked_by == "me"
