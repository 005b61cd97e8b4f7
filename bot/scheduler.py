"""Scheduled jobs (APScheduler 3), started and stopped with the dispatcher.

Every job has a fixed id, an explicit misfire grace, never overlaps itself
(max_instances=1, coalesce) and, with several bot instances on one database, runs
once: a lock row in ``job_runs`` decides who runs it. Each run's outcome is recorded
there and shown to operators in /status.

A job is a use case like a message: it gets the services it needs when it is built
(``default_jobs``) and they open their own short transactions.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from db.repositories import handoffs, inbox, interactions, jobs
from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.farm.alerts import AlertWatcher
from pipeline.memory.cache import ProfileCache
from pipeline.memory.sweep import ExpertiseSweep
from pipeline.memory.syncing import MemorySync

logger = logging.getLogger(__name__)

#: Raw message text is kept this long; routing metadata stays (AGENT-PLAN seed).
RAW_TEXT_RETENTION = timedelta(days=7)
#: One outbox_flush run sends at most this many rows; the next run goes on.
MAX_FLUSH_PER_RUN = 5000

#: A job's run; returns the detail shown in /status.
JobFunc = Callable[[], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class JobSpec:
    job_id: str
    trigger: BaseTrigger
    func: JobFunc
    misfire_grace_s: int
    #: The lock expires after this even if its holder died mid-run.
    lock_ttl: timedelta


def instance_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class JobRunner:
    def __init__(
        self,
        db: Database,
        owner: str,
        clock: Clock = utcnow,
    ) -> None:
        self._db = db
        self._owner = owner
        self._clock = clock

    async def run(self, spec: JobSpec) -> str:
        """Run ``spec`` if this instance gets its lock; returns ok | error | skipped."""
        try:
            now = self._clock()
            async with self._db.write() as session:
                locked = await jobs.try_lock(
                    session, spec.job_id, self._owner, now, now + spec.lock_ttl
                )
            if not locked:
                return "skipped"
        except Exception:
            logger.exception("job %s: could not take its lock", spec.job_id)
            return "error"
        outcome, detail = "ok", ""
        try:
            detail = await spec.func()
        except Exception as exc:
            logger.exception("job %s failed", spec.job_id)
            outcome, detail = "error", f"{type(exc).__name__}: {exc}"
        try:
            async with self._db.write() as session:
                await jobs.finish(session, spec.job_id, self._owner, self._clock(), outcome, detail)
        except Exception:
            logger.exception("job %s: could not record its outcome", spec.job_id)
        return outcome


def default_jobs(
    db: Database,
    *,
    sweep: ExpertiseSweep,
    cache: ProfileCache,
    sync: MemorySync,
    clock: Clock = utcnow,
    watcher: AlertWatcher | None = None,
) -> list[JobSpec]:
    async def expertise_sweep() -> str:
        return f"upgraded {await sweep.run()}"

    async def cache_expiry() -> str:
        return f"expired {cache.expire()}"

    async def outbox_flush() -> str:
        sent = failed = 0
        while True:  # after an outage the backlog can be longer than one batch
            result = await sync.flush()
            sent, failed = sent + result.sent, failed + result.failed
            if not (result.sent and result.pending) or sent >= MAX_FLUSH_PER_RUN:
                return f"sent {sent}, failed {failed}, pending {result.pending}"

    async def text_retention() -> str:
        async with db.write() as session:
            cleared = await interactions.drop_text_before(session, clock() - RAW_TEXT_RETENTION)
            # An offer to a peer nobody answered keeps its question no longer either.
            expired = await handoffs.expire_offers_before(session, clock() - RAW_TEXT_RETENTION)
            # Handled updates are kept a week to recognise a redelivery (Telegram
            # retries for a day at most), then forgotten.
            forgotten = await inbox.drop_done_before(session, clock() - RAW_TEXT_RETENTION)
        return (
            f"cleared {cleared}"
            + (f", offers {expired}" if expired else "")
            + (f", updates {forgotten}" if forgotten else "")
        )

    minute = timedelta(minutes=1)
    specs = [
        JobSpec(
            "expertise_sweep", CronTrigger(hour=3, minute=10), expertise_sweep, 3600, 30 * minute
        ),
        JobSpec("cache_expiry", IntervalTrigger(minutes=1), cache_expiry, 30, minute),
        JobSpec("outbox_flush", IntervalTrigger(seconds=30), outbox_flush, 15, 5 * minute),
        JobSpec(
            "text_retention", CronTrigger(hour=3, minute=30), text_retention, 3600, 30 * minute
        ),
    ]
    if watcher is not None:
        # Sensor thresholds (pipeline/farm/alerts.py); only where something can send.
        async def sensor_watch() -> str:
            return (await watcher.run()).describe()

        specs.append(
            JobSpec("sensor_watch", IntervalTrigger(minutes=5), sensor_watch, 120, 10 * minute)
        )
    return specs


def build_scheduler(runner: JobRunner, specs: list[JobSpec]) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(timezone=UTC)
    for spec in specs:
        scheduler.add_job(
            runner.run,
            spec.trigger,
            args=[spec],
            id=spec.job_id,
            name=spec.job_id,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=spec.misfire_grace_s,
            replace_existing=True,
        )
    return scheduler
