"""Scheduled jobs (APScheduler 3), started and stopped with the dispatcher.

Every job has a fixed id, an explicit misfire grace, never overlaps itself
(max_instances=1, coalesce) and, with several bot instances on one database, runs
once: a lock row in ``job_runs`` decides who runs it. Each run's outcome is recorded
there and shown to operators in /status.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.repositories import interactions, jobs
from pipeline.farm.alerts import AlertWatcher
from pipeline.memory.manager import MemoryManager

logger = logging.getLogger(__name__)

#: Raw message text is kept this long; routing metadata stays (AGENT-PLAN seed).
RAW_TEXT_RETENTION = timedelta(days=7)
#: One outbox_flush run sends at most this many rows; the next run goes on.
MAX_FLUSH_PER_RUN = 5000

JobFunc = Callable[[async_sessionmaker[AsyncSession]], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class JobSpec:
    job_id: str
    trigger: BaseTrigger
    func: JobFunc
    misfire_grace_s: int
    #: The lock expires after this even if its holder died mid-run.
    lock_ttl: timedelta


def _utcnow() -> datetime:
    return datetime.now(UTC)


def instance_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class JobRunner:
    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        owner: str,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._session_factory = session_factory
        self._owner = owner
        self._clock = clock

    async def run(self, spec: JobSpec) -> str:
        """Run ``spec`` if this instance gets its lock; returns ok | error | skipped."""
        try:
            async with self._session_factory() as session:
                now = self._clock()
                if not await jobs.try_lock(
                    session, spec.job_id, self._owner, now, now + spec.lock_ttl
                ):
                    return "skipped"
        except Exception:
            logger.exception("job %s: could not take its lock", spec.job_id)
            return "error"
        outcome, detail = "ok", ""
        try:
            detail = await spec.func(self._session_factory)
        except Exception as exc:
            logger.exception("job %s failed", spec.job_id)
            outcome, detail = "error", f"{type(exc).__name__}: {exc}"
        try:
            async with self._session_factory() as session:
                await jobs.finish(session, spec.job_id, self._owner, self._clock(), outcome, detail)
        except Exception:
            logger.exception("job %s: could not record its outcome", spec.job_id)
        return outcome


def default_jobs(
    memory: MemoryManager,
    clock: Callable[[], datetime] = _utcnow,
    watcher: AlertWatcher | None = None,
) -> list[JobSpec]:
    async def expertise_sweep(factory: async_sessionmaker[AsyncSession]) -> str:
        async with factory() as session:
            return f"upgraded {await memory.auto_upgrade_sweep(session)}"

    async def cache_expiry(factory: async_sessionmaker[AsyncSession]) -> str:
        return f"expired {memory.expire_cache()}"

    async def outbox_flush(factory: async_sessionmaker[AsyncSession]) -> str:
        sent = failed = 0
        while True:  # after an outage the backlog can be longer than one batch
            result = await memory.flush_outbox(factory)
            sent, failed = sent + result.sent, failed + result.failed
            if not (result.sent and result.pending) or sent >= MAX_FLUSH_PER_RUN:
                return f"sent {sent}, failed {failed}, pending {result.pending}"

    async def text_retention(factory: async_sessionmaker[AsyncSession]) -> str:
        async with factory() as session:
            cleared = await interactions.drop_text_before(session, clock() - RAW_TEXT_RETENTION)
        return f"cleared {cleared}"

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
        async def sensor_watch(factory: async_sessionmaker[AsyncSession]) -> str:
            return (await watcher.run(factory)).describe()

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
