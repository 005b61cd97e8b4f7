"""aiosqlite with one trip to its thread per statement.

aiosqlite runs sqlite3 on a thread of its own, and every call crosses to it and
back: a future, a queue, a wake-up of the event loop through its self-pipe, and the
GIL handed over twice. SQLAlchemy's adapter makes four such calls per SELECT (open a
cursor, execute, fetch all, close) and three per INSERT or UPDATE, three more for
``BEGIN IMMEDIATE``, and one more to roll back the connection the pool gets back
after a commit. On the light path those trips cost more than the SQL, and on a
loaded machine each one can wait for the other thread to be scheduled.

``OneHopCursor`` keeps the cursor API the adapter uses but does the whole statement
in one call on the thread: open a cursor, execute, fetch every row if there are any,
close; the adapter's later ``fetchall`` and ``close`` are answered from memory.
Results are therefore always fetched in full (the adapter does so anyway, except for
server-side cursors, which nothing here uses). Everything else is aiosqlite's own
connection, thread and error handling; ``db/engine.py`` plugs it in through
SQLAlchemy's ``do_connect`` event, so the dialect's own connect arguments apply.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from threading import Thread
from typing import Any

import aiosqlite

#: What one statement leaves behind: description, rows, rowcount, lastrowid.
_Outcome = tuple[Any, list[Any], int, int | None]


class OneHopCursor:
    """A cursor whose every statement is one call on the connection's thread."""

    def __init__(self, connection: OneHopConnection) -> None:
        self._connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1
        self._rows: list[Any] = []

    async def __aenter__(self) -> OneHopCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    async def _run(self, call: Callable[[sqlite3.Cursor], object]) -> OneHopCursor:
        def statement() -> _Outcome:
            cursor = self._connection._conn.cursor()
            try:
                call(cursor)
                description = cursor.description
                rows = cursor.fetchall() if description else []
                return description, rows, cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        outcome: _Outcome = await self._connection._execute(statement)  # type: ignore[no-untyped-call]
        self.description, self._rows, self.rowcount, self.lastrowid = outcome
        return self

    async def execute(self, sql: str, parameters: Any = None) -> OneHopCursor:
        return await self._run(lambda cursor: cursor.execute(sql, parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> OneHopCursor:
        return await self._run(lambda cursor: cursor.executemany(sql, parameters))

    async def executescript(self, script: str) -> OneHopCursor:
        return await self._run(lambda cursor: cursor.executescript(script))

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> Sequence[Any]:
        count = self.arraysize if size is None else size
        rows, self._rows = self._rows[:count], self._rows[count:]
        return rows

    async def fetchall(self) -> Sequence[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def close(self) -> None:
        self._rows = []

    async def setinputsizes(self, *_sizes: Any) -> None:
        return None

    async def nextset(self) -> None:
        return None


class OneHopConnection(aiosqlite.Connection):
    """aiosqlite's connection with ``OneHopCursor`` for cursors."""

    def cursor(self) -> OneHopCursor:  # type: ignore[override]
        return OneHopCursor(self)

    async def rollback(self) -> None:
        # SQLAlchemy's pool rolls back every connection it gets back, after a commit
        # too; with no transaction open that is a trip for nothing. (aiosqlite reads
        # ``in_transaction`` from the event loop's thread as well.)
        connection = self._connection
        if connection is not None and not connection.in_transaction:
            return
        await super().rollback()


def connect(database: str, **kwargs: Any) -> OneHopConnection:
    """As ``aiosqlite.connect``: an awaitable connection; its thread is a daemon (as
    SQLAlchemy makes aiosqlite's), so a connection never closed cannot hang exit."""

    def connector() -> sqlite3.Connection:
        connection: sqlite3.Connection = sqlite3.connect(database, **kwargs)
        return connection

    connection = OneHopConnection(connector, 64)
    thread = connection if isinstance(connection, Thread) else getattr(connection, "_thread", None)
    if isinstance(thread, Thread):
        thread.daemon = True
    return connection
