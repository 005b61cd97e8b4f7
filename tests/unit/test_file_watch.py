"""The SQLite file watch (db/file_watch.py, issue 29 point 2): a database file deleted
or replaced under the running bot stops every write and is said once; a file system
gone read-only or full is seen before a write fails; a start never makes an empty
database where one was."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.wiring.scheduler import JobRunner, JobSpec, every
from db.checkpoint import WalCheckpointer
from db.engine import create_engine
from db.file_watch import (
    DatabaseVanished,
    SqliteFileWatch,
    marker_of,
    refuse_to_recreate,
    sqlite_file,
)
from db.migrate import upgrade
from db.store_health import StoreGone, StoreHealth, WriteProblem
from db.uow import Database


def _file(tmp_path: Path, name: str = "stepan.db") -> Path:
    path = tmp_path / name
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
    return path


def test_a_deleted_file_is_gone_once_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _file(tmp_path)
    health = StoreHealth()
    watch = SqliteFileWatch(path, health)
    assert watch.check() is None and health.writable
    path.unlink()
    with caplog.at_level(logging.ERROR, logger="db.file_watch"):
        first = watch.check()
        again = watch.check()
    assert first is not None and "deleted" in first and again == first
    assert health.reason is WriteProblem.GONE and not health.writable
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 1
    # Put back, it stays gone: the process's connection is on the unlinked file.
    _file(tmp_path)
    assert watch.check() == first


def test_a_replaced_file_is_gone(tmp_path: Path) -> None:
    path = _file(tmp_path)
    other = _file(tmp_path, "copy.db")
    health = StoreHealth()
    watch = SqliteFileWatch(path, health)
    os.replace(other, path)
    gone = watch.check()
    assert gone is not None and "replaced" in gone
    assert health.gone == gone


def test_a_file_not_there_yet_is_noted_when_it_appears(tmp_path: Path) -> None:
    path = tmp_path / "later.db"
    health = StoreHealth()
    watch = SqliteFileWatch(path, health)
    assert watch.check() is None  # never seen: not gone
    _file(tmp_path, "later.db")
    assert watch.check() is None
    path.unlink()
    assert watch.check() is not None


@pytest.mark.parametrize(
    ("flags", "free_blocks", "problem"),
    [
        (os.ST_RDONLY, 10_000, WriteProblem.READ_ONLY),
        (0, 3, WriteProblem.DISK_FULL),
        (0, 10_000, None),
    ],
)
def test_the_file_system_is_read_with_each_look(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: int,
    free_blocks: int,
    problem: WriteProblem | None,
) -> None:
    path = _file(tmp_path)
    health = StoreHealth()
    watch = SqliteFileWatch(path, health)
    fake = SimpleNamespace(f_flag=flags, f_bavail=free_blocks, f_frsize=4096)
    monkeypatch.setattr("db.file_watch.os.statvfs", lambda _path: fake)
    watch.check()
    assert health.reason is problem
    assert health.writable  # writes still try; their own failure says the rest
    monkeypatch.setattr(
        "db.file_watch.os.statvfs",
        lambda _p: SimpleNamespace(f_flag=0, f_bavail=10**6, f_frsize=4096),
    )
    watch.check()
    assert health.reason is None  # seen again as fine: /status green again


async def test_writes_stop_once_the_file_is_gone(tmp_path: Path) -> None:
    path = _file(tmp_path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    db = Database.of(engine)
    try:
        watch = SqliteFileWatch(path, db.health)
        async with db.write():
            pass
        path.unlink()
        watch.check()
        with pytest.raises(StoreGone):
            async with db.write():
                pass
    finally:
        await engine.dispose()


async def test_jobs_skip_a_gone_file_and_operators_are_told_once(tmp_path: Path) -> None:
    path = _file(tmp_path)
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    db = Database.of(engine)
    told: list[str] = []
    ran: list[str] = []

    async def on_gone(detail: str) -> None:
        told.append(detail)

    async def job() -> str:
        ran.append("ran")
        return "done"

    watch = SqliteFileWatch(path, db.health)
    looking = asyncio.create_task(watch.run(on_gone, interval_s=3600))
    try:
        await asyncio.sleep(0)  # the first look: the file is there
        assert told == []
        runner = JobRunner(db, "test", file_watch=watch)
        spec = JobSpec("wal_checkpoint", every(minutes=5), job, 60, timedelta(minutes=1), True)
        path.unlink()
        # The look before the job finds it gone: the job is skipped, operators told.
        assert await runner.run(spec) == "skipped"
        assert await runner.run(spec) == "skipped"
        assert ran == [] and len(told) == 1 and "deleted" in told[0]
    finally:
        looking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await looking
        await engine.dispose()


def test_a_checkpoint_never_creates_a_missing_file(tmp_path: Path) -> None:
    path = _file(tmp_path)
    path.unlink()
    with pytest.raises(sqlite3.OperationalError):
        WalCheckpointer(path).checkpoint()
    assert not path.exists()


def test_a_start_refuses_to_make_an_empty_database_where_one_was(tmp_path: Path) -> None:
    path = tmp_path / "data" / "stepan.db"
    path.parent.mkdir()
    url = f"sqlite+aiosqlite:///{path}"
    refuse_to_recreate(url)  # a first start: nothing was here
    upgrade(url)
    assert marker_of(path).exists()
    refuse_to_recreate(url)  # the database is there
    path.unlink()
    with pytest.raises(DatabaseVanished, match="stepan migrate"):
        refuse_to_recreate(url)
    upgrade(url)  # `stepan migrate` makes one on purpose
    refuse_to_recreate(url)


def test_only_sqlite_files_are_watched() -> None:
    health = StoreHealth()
    assert SqliteFileWatch.for_url("postgresql+asyncpg://u@h/db", health) is None
    assert SqliteFileWatch.for_url("sqlite+aiosqlite:///:memory:", health) is None
    assert sqlite_file("sqlite+aiosqlite:////srv/stepan.db?mode=rw") == Path("/srv/stepan.db")
