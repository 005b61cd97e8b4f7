"""SQLite's WAL is checkpointed by a job on a connection of its own, never inside a
conversation's commit (db/checkpoint.py), and stays bounded."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from bot.wiring.scheduler import JobRunner, default_jobs
from db.checkpoint import CHECKPOINT_EVERY_S, WAL_SIZE_LIMIT, WalCheckpointer
from db.engine import create_engine
from db.uow import Database
from pipeline.memory import build_memory
from tests.conftest import make_settings
from tests.integration.bot_harness import running_bot

PAGE = 4096
#: SQLite's default wal_autocheckpoint, in pages.
AUTOCHECKPOINT_PAGES = 1000


async def _fill(db: Database, commits: int, pages_each: int) -> None:
    async with db.write() as session:
        await session.execute(text("CREATE TABLE IF NOT EXISTS filler (body BLOB)"))
    for _ in range(commits):
        async with db.write() as session:
            await session.execute(
                text("INSERT INTO filler (body) VALUES (randomblob(:n))"), {"n": pages_each * PAGE}
            )


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


async def _pragma(db: Database, name: str) -> int:
    async with db.read() as session:
        return int((await session.execute(text(f"PRAGMA {name}"))).scalar_one())


async def test_a_commit_never_checkpoints_and_the_job_does(tmp_path: Path) -> None:
    path = tmp_path / "stepan.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}", checkpoint_by_job=True)
    try:
        db = Database.of(engine)
        assert await _pragma(db, "wal_autocheckpoint") == 0
        assert await _pragma(db, "journal_size_limit") == WAL_SIZE_LIMIT
        await _fill(db, commits=60, pages_each=25)  # ~1,500 pages, past SQLite's 1,000
        # No commit copied the WAL back: every page written is still in it.
        assert _wal(path).stat().st_size > AUTOCHECKPOINT_PAGES * PAGE
        checkpointer = WalCheckpointer.for_url(f"sqlite+aiosqlite:///{path}")
        assert checkpointer is not None
        first = await checkpointer.run()
        assert not first.busy and first.wal_frames > AUTOCHECKPOINT_PAGES
        assert first.checkpointed == first.wal_frames
        # The next writer starts the WAL from its beginning again: bounded.
        await _fill(db, commits=1, pages_each=1)
        second = await checkpointer.run()
        assert second.wal_frames < 10 and second.checkpointed == second.wal_frames
    finally:
        await engine.dispose()


async def test_the_wal_file_is_cut_back_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "stepan.db"
    limit = 64 * PAGE
    engine = create_engine(
        f"sqlite+aiosqlite:///{path}", checkpoint_by_job=True, wal_size_limit=limit
    )
    try:
        db = Database.of(engine)
        await _fill(db, commits=20, pages_each=20)
        assert _wal(path).stat().st_size > limit
        checkpointer = WalCheckpointer(path)
        await checkpointer.run()
        await _fill(db, commits=1, pages_each=1)  # restarts the WAL and truncates it
        assert _wal(path).stat().st_size <= limit
    finally:
        await engine.dispose()


async def test_without_the_job_sqlite_checkpoints_as_usual(tmp_path: Path) -> None:
    # Tools and migrations keep SQLite's own checkpoints: nothing else would run them.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'tool.db'}")
    try:
        assert await _pragma(Database.of(engine), "wal_autocheckpoint") == AUTOCHECKPOINT_PAGES
    finally:
        await engine.dispose()


def test_postgres_has_no_checkpoint_job() -> None:
    assert WalCheckpointer.for_url("postgresql+asyncpg://u@h/db") is None
    assert WalCheckpointer.for_url("sqlite+aiosqlite:///:memory:") is None


async def test_the_job_runs_on_every_instance_and_reports(db: Database, tmp_path: Path) -> None:
    path = tmp_path / "jobs.db"
    specs = default_jobs(
        db, sweep=build_memory(db).sweep, cache=build_memory(db).cache,
        sync=build_memory(db).sync, wal=WalCheckpointer(path),
    )  # fmt: skip
    spec = next(s for s in specs if s.job_id == "wal_checkpoint")
    assert spec.per_instance and spec.misfire_grace_s == CHECKPOINT_EVERY_S
    engine = create_engine(f"sqlite+aiosqlite:///{path}", checkpoint_by_job=True)
    try:
        await _fill(Database.of(engine), commits=3, pages_each=2)
        assert await JobRunner(db, "a").run(spec) == "ok"
    finally:
        await engine.dispose()


async def test_the_bot_checkpoints_by_job(sqlite_url: str) -> None:
    async with running_bot(make_settings(sqlite_url)) as harness:
        assert harness.dispatcher["scheduler"].get_job("wal_checkpoint") is not None
        await harness.say(5, "привіт")
        db: Database = harness.core.db
        assert await _pragma(db, "wal_autocheckpoint") == 0
