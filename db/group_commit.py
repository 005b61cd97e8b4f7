"""Group commit: the end-of-message writes of concurrent messages in one transaction.

A light message ends with small writes of different kinds: its interaction record
(pipeline/memory/profiles/recording.py) and, once the reply is out, its inbox row marked done
(bot/transport/inbox.py). Each in a transaction of its own costs a ``BEGIN IMMEDIATE``, a
commit, an ORM flush and a dozen hops to the database thread, and on SQLite every
transaction waits for the one writer anyway. So each kind of write is a ``Lane``:
``submit`` queues an item and returns once it is committed; while one transaction is
being written the next items queue, from every lane, and the next transaction takes
all of them. N concurrent messages cost one transaction, not 2N.

All or nothing per transaction, and nothing lost to a neighbour: a transaction that
fails is written again item by item, so one bad item costs only itself (its lane's
``failed`` is called, then the others commit). ``submit`` never raises for a failed
write; the lane's ``failed`` decides what a failure means (log, invalidate a cache).
Exactly-once is unchanged: a submit returns only after its commit, and a crash before
that commit leaves the item unwritten, as if it had had a transaction of its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Opens a transaction committed on exit (``Database.write``).
WriteTx = Callable[[], AbstractAsyncContextManager[AsyncSession]]


@dataclass(eq=False)
class Lane(Generic[T]):
    """One kind of write. ``apply`` writes a batch of items in the shared transaction
    (never commits) and returns what ``committed`` gets after the commit; ``failed``
    is called with an item whose own transaction failed, and must not raise."""

    group: GroupCommit
    apply: Callable[[AsyncSession, list[T]], Awaitable[Any]]
    committed: Callable[[list[T], Any], None] | None = None
    failed: Callable[[T, BaseException], None] | None = None
    name: str = "lane"

    async def submit(self, item: T) -> None:
        """Queue ``item``; returns once its transaction committed or failed. A caller
        that is cancelled does not take its item with it (it is still written)."""
        await asyncio.shield(self.group.enqueue(self, item))


@dataclass(eq=False)
class _Pending:
    items: dict[Lane[Any], list[Any]] = field(default_factory=dict)
    futures: list[asyncio.Future[None]] = field(default_factory=list)


class GroupCommit:
    """The queue and its one writer task (per event loop: tests run several)."""

    def __init__(self, write: WriteTx) -> None:
        self._write_tx = write
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = _Pending()
        self._writer: asyncio.Task[None] | None = None
        #: Transactions written (a batch retried item by item counts each retry).
        self.transactions = 0

    def lane(
        self,
        apply: Callable[[AsyncSession, list[T]], Awaitable[Any]],
        *,
        committed: Callable[[list[T], Any], None] | None = None,
        failed: Callable[[T, BaseException], None] | None = None,
        name: str = "lane",
    ) -> Lane[T]:
        return Lane(self, apply, committed, failed, name)

    def enqueue(self, lane: Lane[T], item: T) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._pending, self._writer = loop, _Pending(), None
        future: asyncio.Future[None] = loop.create_future()
        self._pending.items.setdefault(lane, []).append(item)
        self._pending.futures.append(future)
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._drain())
        return future

    async def drain(self) -> None:
        """Wait until everything queued is written (before shutdown)."""
        while self._writer is not None and not self._writer.done():
            if self._loop is not asyncio.get_running_loop():
                return
            await asyncio.gather(self._writer, return_exceptions=True)

    async def _drain(self) -> None:
        while self._pending.futures:
            batch, self._pending = self._pending, _Pending()
            try:
                await self._write(list(batch.items.items()))
            finally:
                # Even if the writer is cancelled (shutdown), nobody may be left
                # waiting for a batch that will not be written.
                for future in batch.futures:
                    if not future.done():
                        future.set_result(None)

    async def _write(self, batch: Sequence[tuple[Lane[Any], list[Any]]]) -> None:
        results: list[Any] = []
        try:
            self.transactions += 1
            async with self._write_tx() as session:
                for lane, items in batch:
                    results.append(await lane.apply(session, items))
        except Exception as exc:
            singles = [(lane, [item]) for lane, items in batch for item in items]
            if len(singles) > 1:
                # One bad item must not cost the others: each in a transaction alone.
                for single in singles:
                    await self._write([single])
                return
            lane, items = singles[0]
            if lane.failed is not None:
                lane.failed(items[0], exc)
            else:
                logger.exception("group commit: %s failed", lane.name)
            return
        for (lane, items), result in zip(batch, results, strict=True):
            if lane.committed is not None:
                try:
                    lane.committed(items, result)
                except Exception:
                    logger.exception("group commit: %s after commit failed", lane.name)
