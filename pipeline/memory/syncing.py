"""Syncing the outbox to the memory-service: the flush job, the backlog, the breaker.

SQL is the truth; the memory-service gets a copy. Every profile write queued an
outbox row in its own transaction (``pipeline.memory.outbox``); ``flush`` sends them
in order, each read and each marking in a short transaction of its own, never one
held across a call to the service. Details: docs/memory.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from db.models import OutboxRow
from db.repositories import outbox
from db.uow import Database
from pipeline.memory.client import MemoryServiceClient, Outcome

logger = logging.getLogger(__name__)

#: Outbox rows of one user taken per flush batch (see outbox.pending).
FLUSH_PER_USER = 20
#: Sent upserts are kept this long for audit, then pruned by the flush.
SENT_RETENTION = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class FlushResult:
    sent: int  # outbox rows delivered in this run (coalesced rows count each)
    failed: int  # rows whose delivery failed in this run (they stay pending)
    pending: int  # rows still waiting after this run


@dataclass(slots=True)
class _Unit:
    """One call to the memory-service: a run of a user's consecutive outbox rows for
    the same key, coalesced into the latest payload (upserts) or a single delete."""

    user_id: str
    fact_key: str
    operation: str
    payload: dict[str, Any] | None
    ids: list[int] = field(default_factory=list)


class MemorySync:
    def __init__(
        self,
        db: Database,
        client: MemoryServiceClient | None,
        clock: Callable[[], datetime],
    ) -> None:
        self._db = db
        self._client = client
        self._clock = clock
        # One flush at a time in this process; across instances the scheduler's
        # job lock (job_runs) keeps it to one.
        self._lock = asyncio.Lock()

    @property
    def client(self) -> MemoryServiceClient | None:
        return self._client

    @property
    def breaker_state(self) -> str:
        """closed | open | half_open, or disabled without a memory-service."""
        return "disabled" if self._client is None else self._client.breaker.state

    async def backlog(self) -> int:
        """Rows not yet delivered to the memory-service."""
        async with self._db.read() as session:
            return await outbox.backlog(session)

    async def flush(self, *, batch: int = 100) -> FlushResult:
        """Send up to ``batch`` pending outbox rows, oldest first. A user whose call
        fails keeps their later rows back (their order holds); other users go on.
        Network trouble never raises; a database error does (the job records it)."""
        if self._client is None:
            return FlushResult(0, 0, 0)
        async with self._lock:
            return await self._flush(self._client, batch)

    async def _flush(self, client: MemoryServiceClient, batch: int) -> FlushResult:
        if client.breaker.state == "open":
            # Nothing may be sent before the cool-down ends, so do not even read the
            # outbox: during a long outage it grows, and on SQLite every read takes
            # the write lock that conversations need.
            return FlushResult(0, 0, await self.backlog())
        async with self._db.read() as session:
            rows = await outbox.pending(session, limit=batch, per_user=FLUSH_PER_USER)
        if not rows and client.breaker.state == "half_open":
            # Nothing to send, but conversations wait for a closed breaker to hydrate.
            await client.probe()
        sent: list[int] = []
        sent_deletes: list[int] = []
        failures: list[tuple[list[int], str]] = []
        blocked: set[str] = set()
        for unit in plan(rows):
            if unit.user_id in blocked:
                continue
            outcome = await _send(client, unit)
            if outcome.status == "skipped":
                break  # breaker open: nothing more is tried until the cool-down ends
            if outcome.status == "ok":
                (sent_deletes if unit.operation == "delete" else sent).extend(unit.ids)
                continue
            blocked.add(unit.user_id)
            failures.append((unit.ids, outcome.error or outcome.status))
        now = self._clock()
        async with self._db.write() as session:
            delivered = await outbox.mark_sent(session, sent, now)
            # Delete rows exist so the memory-service forgets too; once it has,
            # nothing of the user may stay behind (forget's promise).
            delivered += await outbox.delete_ids(session, sent_deletes)
            for ids, error in failures:
                await outbox.record_failure(session, ids, error)
            await outbox.prune_sent(session, now - SENT_RETENTION)
            pending = await outbox.backlog(session)
        failed = sum(len(ids) for ids, _ in failures)
        if delivered or failed:
            logger.info("memory: outbox sent=%d failed=%d pending=%d", delivered, failed, pending)
        return FlushResult(delivered, failed, pending)


async def _send(client: MemoryServiceClient, unit: _Unit) -> Outcome:
    if unit.operation == "delete":
        return await client.delete(unit.user_id, unit.fact_key)
    if unit.operation == "upsert" and unit.payload is not None:
        return await client.upsert(unit.user_id, unit.fact_key, unit.payload)
    return Outcome("rejected", f"malformed outbox row: {unit.operation}")


def plan(rows: Sequence[OutboxRow]) -> list[_Unit]:
    """Calls to make, in the order of their first row: per user, consecutive upserts
    of the same key collapse into the latest one (it carries the whole profile)."""
    last_unit: dict[str, _Unit] = {}
    units: list[_Unit] = []
    for row in rows:
        previous = last_unit.get(row.user_id)
        if (
            previous is not None
            and row.operation == "upsert"
            and previous.operation == "upsert"
            and previous.fact_key == row.fact_key
        ):
            previous.payload = row.payload
            previous.ids.append(row.id)
            continue
        unit = _Unit(row.user_id, row.fact_key, row.operation, row.payload, [row.id])
        units.append(unit)
        last_unit[row.user_id] = unit
    return units
