"""Syncing the outbox to the memory-service: the flush job, the backlog, the breaker.

SQL is the truth; the memory-service gets a copy. Every profile write queued an
outbox row in its own transaction (``pipeline.memory.service.outbox``); ``flush`` sends them
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
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.service import summaries
from pipeline.memory.service.client import MemoryServiceClient, Outcome
from pipeline.memory.service.pulling import PullResult, pull
from pipeline.memory.service.remote_merge import merge_remote

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
    dead: int = 0  # rows the service refused for good in this run (dead letters)
    #: What was sent, one line per call ("upsert user_profile:agromatrix:tg:1").
    calls: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class DeadLetter:
    id: int
    user_id: str
    operation: str
    fact_key: str
    reason: str


@dataclass(frozen=True, slots=True)
class SyncStatus:
    breaker: str  # closed | open | half_open | disabled
    counts: dict[str, int]  # unsent rows: pending, config_error, dead
    config_error: str | None  # why the service refuses Stepan's credentials, and what to fix
    dead: tuple[DeadLetter, ...]  # the oldest dead letters

    @property
    def healthy(self) -> bool:
        return self.breaker == "closed" and not self.config_error and not self.counts["dead"]


@dataclass(slots=True)
class _Unit:
    """One call to the memory-service: a run of a user's consecutive outbox rows for
    the same key, coalesced into the latest payload (upserts) or a single delete."""

    user_id: str
    fact_key: str
    operation: str
    payload: dict[str, Any] | None
    ids: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Run:
    """What one flush did, written back in one short transaction at its end."""

    sent: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)  # delivered deletes: gone for good
    failures: list[tuple[list[int], str, outbox.State]] = field(default_factory=list)
    blocked: set[str] = field(default_factory=set)
    stop: bool = False
    calls: list[str] = field(default_factory=list)

    def fail(self, unit_ids: list[int], user_id: str, outcome: Outcome) -> None:
        if outcome.status == "skipped":
            self.stop = True  # the breaker opened: nothing was sent, nothing to count
            return
        state: outbox.State = "config_error" if outcome.status == "config_error" else "pending"
        if outcome.status == "dead":
            state = "dead"
        else:
            # Its later rows wait behind it (order); a dead letter holds nobody up.
            self.blocked.add(user_id)
        self.failures.append((unit_ids, outcome.error or outcome.status, state))
        # The credentials are the same for every farmer: no point asking again now.
        self.stop = self.stop or outcome.status == "config_error"


class MemorySync:
    def __init__(
        self,
        db: Database,
        client: MemoryServiceClient | None,
        clock: Callable[[], datetime],
        cache: ProfileCache | None = None,
    ) -> None:
        self._db = db
        self._client = client
        self._clock = clock
        self._cache = cache
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
        """Rows not yet delivered to the memory-service (dead letters not counted)."""
        async with self._db.read() as session:
            return await outbox.backlog(session)

    async def status(self, *, dead_shown: int = 10) -> SyncStatus:
        """The breaker, the unsent rows by state, the last configuration error and the
        oldest dead letters (for /status and ``stepan memory status``)."""
        async with self._db.read() as session:
            counts = await outbox.counts_by_state(session)
            stored_error = await outbox.latest_config_error(session)
            dead = await outbox.dead_letters(session, limit=dead_shown)
        live_error = self._client.config_error if self._client is not None else None
        return SyncStatus(
            breaker=self.breaker_state,
            counts={state: counts.get(state, 0) for state in ("pending", "config_error", "dead")},
            config_error=live_error or (stored_error if counts.get("config_error") else None),
            dead=tuple(
                DeadLetter(row.id, row.user_id, row.operation, row.fact_key, row.last_error or "")
                for row in dead
            ),
        )

    async def retry_dead(self) -> int:
        """Dead letters back to pending (after the bug or the contract was fixed)."""
        async with self._db.write() as session:
            return await outbox.requeue(session, ["dead"])

    async def pull(self, user_id: str) -> PullResult:
        """Hydrate one farmer from the service's copy on an operator's request."""
        if self._client is None:
            return PullResult(False, "no memory-service configured (AGX_MEMORY_SERVICE_URL)")
        cache = self._cache or ProfileCache()
        return await pull(self._db, self._client, cache, user_id, self._clock())

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
        run = _Run()
        rows = await self._pending(batch)
        if not rows and client.breaker.state == "half_open":
            # Nothing to send, but conversations wait for a closed breaker to hydrate.
            await client.probe()
        if await self._merge_marked(client, rows, run):
            rows = await self._pending(batch)  # the merged profiles replaced the upserts
        await _send_all(client, rows, run)
        return await self._record(run, {row.user_id for row in rows if row.id in run.removed})

    async def _merge_marked(
        self, client: MemoryServiceClient, rows: Sequence[OutboxRow], run: _Run
    ) -> bool:
        """Merge the profiles of these rows' users that still wait for the service's
        copy (``remote_merge``) before anything of theirs is sent; a user whose merge
        fails is blocked for this run. True when some user was marked."""
        async with self._db.read() as session:
            marked = await outbox.to_merge(session, {r.user_id for r in rows})
        for user_id in sorted(marked):
            if run.stop:
                break
            ids = [row.id for row in rows if row.user_id == user_id][:1]
            outcome = await merge_remote(self._db, client, user_id, self._clock())
            if outcome.status != "ok":
                # Never a plain upsert over a copy not yet read: the user waits.
                run.fail(ids, user_id, outcome)
                run.blocked.add(user_id)
            if self._cache is not None:
                self._cache.invalidate(user_id)
        return bool(marked)

    async def _pending(self, batch: int) -> list[OutboxRow]:
        async with self._db.read() as session:
            return await outbox.pending(session, limit=batch, per_user=FLUSH_PER_USER)

    async def _record(self, run: _Run, forgotten: set[str]) -> FlushResult:
        now = self._clock()
        async with self._db.write() as session:
            delivered = await outbox.mark_sent(session, run.sent, now)
            # Delete rows exist so the memory-service forgets too; once it has,
            # nothing of the user may stay behind (forget's promise).
            delivered += await outbox.delete_ids(session, run.removed)
            await outbox.confirm_forgotten(session, forgotten, now)
            for ids, error, state in run.failures:
                await outbox.record_failure(session, ids, error, state)
            await outbox.prune_sent(session, now - SENT_RETENTION)
            pending = await outbox.backlog(session)
        failed = sum(len(ids) for ids, _, state in run.failures if state != "dead")
        dead = sum(len(ids) for ids, _, state in run.failures if state == "dead")
        if delivered or failed or dead:
            logger.info(
                "memory: outbox sent=%d failed=%d dead=%d pending=%d",
                delivered,
                failed,
                dead,
                pending,
            )
        return FlushResult(delivered, failed, pending, dead, tuple(run.calls))


#: Operations whose rows are deleted once delivered (a forget leaves nothing behind).
_GONE_WHEN_SENT = frozenset({"delete", "summary_delete", "summary_purge"})


async def _send_all(client: MemoryServiceClient, rows: Sequence[OutboxRow], run: _Run) -> None:
    """Send the rows' calls in order, noting each outcome on ``run``; a blocked user's
    are skipped, and the run stops when ``run`` says so."""
    for unit in plan(rows):
        if run.stop:
            break
        if unit.user_id in run.blocked:
            continue
        outcome = await _send(client, unit)
        if outcome.status == "ok":
            (run.removed if unit.operation in _GONE_WHEN_SENT else run.sent).extend(unit.ids)
            run.calls.append(f"{unit.operation} {unit.fact_key} ({len(unit.ids)} row(s))")
        else:
            run.fail(unit.ids, unit.user_id, outcome)


async def _send(client: MemoryServiceClient, unit: _Unit) -> Outcome:
    if unit.operation == "delete":
        return await client.delete(unit.user_id, unit.fact_key)
    if unit.operation == "upsert" and isinstance(unit.payload, dict):
        return await client.upsert(unit.user_id, unit.fact_key, unit.payload)
    if unit.operation == "summary_add" and isinstance(unit.payload, dict):
        return await summaries.create(client, unit.user_id, unit.payload)
    if unit.operation == "summary_delete":
        return await summaries.delete(client, unit.user_id, unit.fact_key)
    if unit.operation == "summary_purge":
        return await summaries.purge(client, unit.user_id)
    return Outcome("dead", f"malformed outbox row: {unit.operation}")


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
