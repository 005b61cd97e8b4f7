"""The nightly retention job: raw text is kept a week (AGENT-PLAN seed), routing
metadata stays.

It clears the interactions' text and forgets handled Telegram updates in chunks of
``chunk`` rows, one short transaction each, yielding to the event loop between two:
on SQLite every transaction holds the single writer lock, and a conversation waiting
for it gets in between two chunks instead of after the whole night's work (issue 17:
one UPDATE of a night's rows held the lock for a second). Each chunk reads only the
rows it changes (``ix_interactions_text_kept``, docs/OPERATIONS.md "Indexes").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from db.repositories import handoffs, inbox, interactions, jobs, recall
from db.uow import Database, Session
from pipeline.clock import Clock, utcnow

#: Raw message text is kept this long; routing metadata stays (AGENT-PLAN seed).
RAW_TEXT_RETENTION = timedelta(days=7)
#: Rows changed per transaction: a few milliseconds of the writer lock each.
RETENTION_CHUNK = 1000

#: One chunk: changes at most ``limit`` rows older than ``cutoff``, returns how many.
Chunk = Callable[[Session, datetime, int], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class RetentionResult:
    cleared: int
    offers: int
    updates: int
    transactions: int

    def describe(self) -> str:
        return (
            f"cleared {self.cleared}"
            + (f", offers {self.offers}" if self.offers else "")
            + (f", updates {self.updates}" if self.updates else "")
        )


class TextRetention:
    def __init__(
        self,
        db: Database,
        *,
        clock: Clock = utcnow,
        keep: timedelta = RAW_TEXT_RETENTION,
        chunk: int = RETENTION_CHUNK,
    ) -> None:
        if chunk <= 0:
            raise ValueError(f"retention chunk must be positive, not {chunk}")
        self._db = db
        self._clock = clock
        self._keep = keep
        self._chunk = chunk

    async def run(self) -> RetentionResult:
        """One pass; a database error raises (the job records it), what was cleared
        before it stays cleared."""
        cutoff = self._clock() - self._keep
        cleared, first = await self._in_chunks(interactions.clear_text_chunk, cutoff)
        # Handled updates are kept a week to recognise a redelivery (Telegram retries
        # for a day at most), then forgotten.
        updates, second = await self._in_chunks(inbox.drop_done_before, cutoff)
        async with self._db.write() as session:
            # An offer to a peer nobody answered keeps its question no longer either
            # (a handful a day: one statement).
            offers = await handoffs.expire_offers_before(session, cutoff)
            # Remembered answers hold the farmer's data too (shortcuts last minutes).
            await recall.drop_answers_before(session, cutoff)
            await jobs.drop_slots_before(session, cutoff)
        return RetentionResult(cleared, offers, updates, first + second + 1)

    async def _in_chunks(self, chunk: Chunk, cutoff: datetime) -> tuple[int, int]:
        """Run ``chunk`` in transactions of its own until one changes fewer rows than
        the chunk size; returns the rows changed and the transactions taken."""
        total = transactions = 0
        while True:
            async with self._db.write() as session:
                changed = await chunk(session, cutoff, self._chunk)
            total += changed
            transactions += 1
            if changed < self._chunk:
                return total, transactions
            # Let a conversation that asked meanwhile queue first (db/turns.py is FIFO).
            await asyncio.sleep(0)
