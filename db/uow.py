"""The one way a use case opens a transaction.

Repositories take an ``AsyncSession`` and never commit or roll back; the use case
that owns the work (a message, a button, a job, an operator edit) opens its
transactions here, visibly:

    async with db.write() as session:   # committed on exit, rolled back on error
        ...
    async with db.read() as session:    # never commits: rolled back on exit
        ...

Transactions stay short: on SQLite every transaction holds the single writer lock
(``BEGIN IMMEDIATE``, db/engine.py), so no network call or LLM call may run inside one.
On SQLite transactions also take turns first come, first served (db/turns.py), so a
job working in chunks of short transactions lets a waiting conversation in between
two chunks. Small writes that many concurrent messages make (an interaction record,
an inbox row marked done) go through ``db.group`` instead: one transaction for all
of them that are waiting (db/group_commit.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.engine import SQLITE_BUSY_TIMEOUT_MS
from db.group_commit import GroupCommit
from db.store_health import StoreGone, StoreHealth
from db.turns import WriterTurns

#: The session type pipeline code names in its hints, so it need not import SQLAlchemy.
Session = AsyncSession


class Database:
    """Owns the session factory; built once in the factory and injected."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, turns: WriterTurns | None = None
    ) -> None:
        self._sessions = sessions
        if turns is None and _is_sqlite(sessions):
            turns = WriterTurns(SQLITE_BUSY_TIMEOUT_MS / 1000)
        #: SQLite's first-come-first-served writer queue; None on PostgreSQL.
        self.turns = turns
        #: Small writes of concurrent use cases committed together (db/group_commit.py).
        self.group = GroupCommit(self.write)
        #: Whether writes go through, and why not (db/store_health.py).
        self.health = StoreHealth()

    @classmethod
    def of(cls, engine: AsyncEngine) -> Database:
        return cls(async_sessionmaker(engine, expire_on_commit=False))

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        return self._sessions

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A transaction committed when the block ends, rolled back if it raises."""
        if self.health.gone is not None:
            raise StoreGone(self.health.gone)
        async with self._turn(), self._sessions() as session:
            try:
                yield session
                await session.commit()
            except BaseException as exc:
                self.health.failed(exc)
                await session.rollback()
                raise
        self.health.committed()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read: never committed. Closing the session gives its connection back to
        the pool, which rolls the transaction back; unlike ``session.rollback()`` this
        leaves the rows read usable after the block (detached, not expired)."""
        async with self._turn(), self._sessions() as session:
            yield session

    def _turn(self) -> AbstractAsyncContextManager[None]:
        return self.turns.turn() if self.turns is not None else nullcontext()


def _is_sqlite(sessions: async_sessionmaker[AsyncSession]) -> bool:
    bind = sessions.kw.get("bind")
    return isinstance(bind, AsyncEngine) and bind.dialect.name == "sqlite"
