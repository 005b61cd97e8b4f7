"""Engine and session factory. Built by the app factory, never a module global."""

from __future__ import annotations

from dataclasses import dataclass
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

from db import sqlite_driver
from db.checkpoint import WAL_SIZE_LIMIT

#: How long a SQLite writer waits for the lock before giving up (ms).
SQLITE_BUSY_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class DbTimeouts:
    """PostgreSQL limits for the running bot (migrations and tools run without):
    a table locked for a minute, or a server that stopped answering, costs a
    farmer seconds and an error reply, not a minute of silence."""

    #: Waiting for a row or table lock (PostgreSQL ``lock_timeout``).
    lock_s: float = 5.0
    #: One statement (PostgreSQL ``statement_timeout``); reports stay well under.
    statement_s: float = 20.0
    #: Opening a connection (asyncpg's default is 60 s).
    connect_s: float = 5.0
    #: Waiting for a pooled connection when all are busy.
    pool_s: float = 10.0


def create_engine(
    database_url: str,
    *,
    timeouts: DbTimeouts | None = None,
    checkpoint_by_job: bool = False,
    wal_size_limit: int = WAL_SIZE_LIMIT,
    **kwargs: Any,
) -> AsyncEngine:
    """An async engine; SQLite gets WAL, a busy timeout and immediate transactions,
    PostgreSQL ``timeouts`` when given and pre-ping (a restarted server's dead
    connections are replaced, not handed out). ``checkpoint_by_job``: SQLite never
    checkpoints inside a commit; the caller runs db/checkpoint.py's job instead, and
    a writer that restarts the WAL cuts its file back to ``wal_size_limit`` bytes."""
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
        _configure_sqlite(engine, wal_size_limit if checkpoint_by_job else None)
        if database_url.startswith("sqlite+aiosqlite"):
            _one_hop_statements(engine)
        _strip_nul(engine)
        return engine
    if timeouts is not None and database_url.startswith("postgresql+asyncpg"):
        kwargs.setdefault("pool_timeout", timeouts.pool_s)
        kwargs.setdefault(
            "connect_args",
            {
                "timeout": timeouts.connect_s,
                # Client side too: a server that vanished mid-query (no RST) is
                # noticed, not waited on forever.
                "command_timeout": timeouts.statement_s + 5,
                "server_settings": {
                    "lock_timeout": str(int(timeouts.lock_s * 1000)),
                    "statement_timeout": str(int(timeouts.statement_s * 1000)),
                },
            },
        )
    engine = create_async_engine(database_url, pool_pre_ping=True, **kwargs)
    _strip_nul(engine)
    return engine


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def _ensure_sqlite_dir(database_url: str) -> None:
    path = database_url.split(":///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)


def _configure_sqlite(engine: AsyncEngine, wal_size_limit: int | None) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        # Take transaction control away from the sqlite3 module so BEGIN below is
        # the only one issued (SQLAlchemy's documented pysqlite/aiosqlite recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # FULL: the WAL is synced at every commit, so what Stepan answered for
        # survives a power loss or a kernel crash, not only a crash of the process
        # (NORMAL syncs at checkpoints only). The group commit (db/group_commit.py)
        # shares one sync among concurrent messages (docs/BENCHMARKS.md, durable
        # commits; tests/e2e/test_crash_recovery.py, a power loss).
        cursor.execute("PRAGMA synchronous=FULL")
        if wal_size_limit is not None:
            # No checkpoint inside a conversation's commit; the WAL is cut back to
            # the limit when a writer restarts it after the job's checkpoint.
            cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.execute(f"PRAGMA journal_size_limit={int(wal_size_limit)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred transaction that reads and then writes fails at once with
        # "database is locked" when another writer got there first: the busy timeout
        # does not apply to the upgrade. BEGIN IMMEDIATE takes the write lock up
        # front, so concurrent writers queue on the busy timeout instead. Callers
        # keep transactions short (commit before any network call).
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _one_hop_statements(engine: AsyncEngine) -> None:
    """aiosqlite, one trip to its thread per statement (db/sqlite_driver.py), with
    the connect arguments the dialect worked out from the URL."""

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect(dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]) -> Any:
        return dialect.loaded_dbapi.connect(
            *cargs, async_creator_fn=sqlite_driver.connect, **cparams
        )


def _has_nul(params: Any) -> bool:
    """Any NUL in these parameters: one loop over a row, nothing copied."""
    if isinstance(params, str):
        return "\x00" in params
    if isinstance(params, dict):
        params = params.values()
    elif not isinstance(params, tuple | list):
        return False
    for param in params:
        if type(param) is str:
            if "\x00" in param:
                return True
        elif isinstance(param, str | tuple | list | dict) and _has_nul(param):
            return True
    return False


def _without_nul(params: Any) -> Any:
    if isinstance(params, str):
        return params.replace("\x00", "") if "\x00" in params else params
    if isinstance(params, tuple):
        return tuple(_without_nul(p) for p in params)
    if isinstance(params, list):
        return [_without_nul(p) for p in params]
    if isinstance(params, dict):
        return {k: _without_nul(v) for k, v in params.items()}
    return params


def _strip_nul(engine: AsyncEngine) -> None:
    """No NUL character reaches the database, whatever path a string took: PostgreSQL
    refuses it in text (the whole write fails: an interaction or a profile lost),
    SQLite stores it and C code reading the value stops at it. Input is cleaned at
    the edges already (bot/middlewares/clean_input.py, the readings endpoint); this
    is the floor under them."""

    @event.listens_for(engine.sync_engine, "before_cursor_execute", retval=True)
    def _before(
        conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
    ) -> tuple[str, Any]:
        # Checked before copied: almost no statement carries a NUL.
        return statement, _without_nul(parameters) if _has_nul(parameters) else parameters
