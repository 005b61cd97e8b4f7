"""Turns for SQLite's single writer: first come, first served.

On SQLite every transaction, a read too, holds the one writer lock (``BEGIN
IMMEDIATE``, db/engine.py) on the one pooled connection. The pool hands that
connection out through a queue where whoever asks first *after* it is returned gets
it, and a job that gives it back and asks again at once is first: a chunked job then
takes chunk after chunk while a waiting conversation never gets in (issue 17: the
expertise sweep kept messages waiting 39 s, then they fell back to a default
profile). ``WriterTurns`` puts an ``asyncio.Lock`` in front, which is FIFO: a
transaction that ends and asks again queues behind whoever was already waiting. So a
job working in short transactions yields to conversations between its chunks, and a
conversation waits at most for the transaction in progress plus those queued before it.

A task that already holds the turn (a nested transaction, which only a pool of more
than one connection can serve) goes ahead rather than waiting on itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import TimeoutError as PoolTimeout


class WriterTurns:
    """One FIFO queue per event loop (tests run several loops over one object)."""

    def __init__(self, wait_s: float) -> None:
        #: How long a transaction waits for its turn before failing like a pool timeout.
        self.wait_s = wait_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None
        #: Transactions queued for a turn (not counting the one holding it).
        self.waiting = 0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            yield  # nested inside this task's own turn
            return
        lock = self._lock_of(asyncio.get_running_loop())
        self.waiting += 1
        try:
            async with asyncio.timeout(self.wait_s):
                await lock.acquire()
        except TimeoutError:
            raise PoolTimeout(f"waited {self.wait_s:.0f}s for the database's writer turn") from None
        finally:
            self.waiting -= 1
        self._holder = task
        try:
            yield
        finally:
            self._holder = None
            lock.release()

    def _lock_of(self, loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
        if self._loop is not loop:
            self._loop, self._lock, self._holder, self.waiting = loop, asyncio.Lock(), None, 0
        return self._lock
