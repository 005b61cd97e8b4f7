"""Engine and session factory. Built by the app factory, never a module global."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

#: How long a SQLite writer waits for the lock before giving up (ms).
SQLITE_BUSY_TIMEOUT_MS = 30_000


def create_engine(database_url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout and immediate transactions."""
    if database_url.startswith("sqlite"):
        _ensure_sqlite_dir(database_url)
        # One connection per process: SQLite has one writer at a time anyway, and
        # queueing for the pool's connection is an asyncio wait in FIFO order,
        # where queueing on the file lock is SQLite's busy handler sleeping and
        # polling (seconds of tail latency under load). The busy timeout stays for
        # other processes (a migration, the console chat) sharing the file.
        kwargs.setdefault("pool_size", 1)
        kwargs.setdefault("max_overflow", 0)
        kwargs.setdefault("pool_timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
        engine = create_async_engine(
            database_url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs
        )
        _configure_sqlite(engine)
        return engine
    return create_async_engine(database_url, pool_pre_ping=True, **kwargs)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def _ensure_sqlite_dir(database_url: str) -> None:
    path = database_url.split(":///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        # Take transaction control away from the sqlite3 module so BEGIN below is
        # the only one issued (SQLAlchemy's documented pysqlite/aiosqlite recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred transaction that reads and then writes fails at once with
        # "database is locked" when another writer got there first: the busy timeout
        # does not apply to the upgrade. BEGIN IMMEDIATE takes the write lock up
        # front, so concurrent writers queue on the busy timeout instead. Callers
        # keep transactions short (commit before any network call).
        conn.exec_driver_sql("BEGIN IMMEDIATE")
