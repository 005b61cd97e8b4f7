"""Scheduled jobs (APScheduler 3), started and stopped with the dispatcher.

Every job has a fixed id, an explicit misfire grace and never overlaps itself
(max_instances=1, a lock row in ``job_runs``). With several bot instances on one
database every instance's scheduler fires, and each run first claims its slot: the
job id and the trigger time it is due at, a row in ``job_slots`` only one instance
can insert. So each slot runs once, however many instances there are. Interval
triggers count from one fixed instant (``SLOT_EPOCH``), so every instance computes
the same slots whenever it started.

Missed slots coalesce: after a pause (the process was down, the event loop was
blocked) a job runs once, for the latest slot still within its misfire grace; older
slots are skipped, not caught up. A slot that comes while the previous run still
holds the job is claimed and recorded as skipped. Jobs that act on one process's
memory (``per_instance``: the profile cache) run on every instance and claim nothing.
Each run's outcome is recorded in ``job_runs`` and shown to operators in /status.

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
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.user_ids import telegram_id
from db.checkpoint import CHECKPOINT_EVERY_S, WalCheckpointer
from db.file_watch import SqliteFileWatch
from db.repositories import jobs
from db.uow import Database
from pipeline.agronomy.desk import AgronomistDesk
from pipeline.clock import Clock, utcnow
from pipeline.farm.journal.edits.reminders import PlanReminders, Send
from pipeline.farm.sensors.alerts import AlertWatcher
from pipeline.learning.nightly import NightlyJob
from pipeline.memory.habits.learner import ProfileLearner
from pipeline.memory.habits.sweep import ExpertiseSweep
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.service.flush_lock import FLUSH_JOB_ID, FLUSH_LOCK_TTL
from pipeline.memory.service.syncing import MemorySync
from pipeline.privacy.retention import TextRetention
from pipeline.recall import Conversations
from pipeline.weather.service import Forecasts
from pipeline.weather.warnings import WeatherWarnings

logger = logging.getLogger(__name__)

#: One outbox_flush run sends at most this many rows; the next run goes on.
MAX_FLUSH_PER_RUN = 5000

#: A job's run; returns the detail shown in /status.
JobFunc = Callable[[], Awaitable[str]]
#: Sends a text to a chat (the bound bot's TelegramAlertSender.send).
Notify = Callable[[int, str], Awaitable[None]]


#: Interval triggers count from here, so all instances share one grid of slots
#: (APScheduler would start each instance's grid at its own start-up).
SLOT_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def every(**interval: float) -> IntervalTrigger:
    """An interval trigger on the shared grid (``every(seconds=30)``)."""
    return IntervalTrigger(**interval, start_date=SLOT_EPOCH, timezone=UTC)


@dataclass(frozen=True, slots=True)
class JobSpec:
    job_id: str
    trigger: BaseTrigger
    func: JobFunc
    misfire_grace_s: int
    #: The lock expires after this even if its holder died mid-run.
    lock_ttl: timedelta
    #: Runs on every instance (it works on this process's memory): no slot, no lock.
    per_instance: bool = False

    def slot(self, now: datetime) -> datetime:
        """The trigger time this run belongs to: the latest fire time within the
        misfire grace (APScheduler runs a job at most that late, coalescing missed
        runs into one). A run off the schedule (by hand) is its own slot, ``now``."""
        fire = self.trigger.get_next_fire_time(None, now - timedelta(seconds=self.misfire_grace_s))
        slot = None
        while fire is not None and fire <= now:
            slot = fire
            fire = self.trigger.get_next_fire_time(fire, fire + timedelta(microseconds=1))
        return slot if slot is not None else now


def instance_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class JobRunner:
    def __init__(
        self,
        db: Database,
        owner: str,
        clock: Clock = utcnow,
        file_watch: SqliteFileWatch | None = None,
    ) -> None:
        self._db = db
        self._owner = owner
        self._clock = clock
        self._file_watch = file_watch

    async def run(self, spec: JobSpec) -> str:
        """Run ``spec`` if this instance claims its slot and gets its lock; returns
        ok | error | skipped (another instance has the slot, or the job still runs, or
        the database file is gone: no job touches it, a checkpoint would make a new one)."""
        if self._file_watch is not None:
            await self._file_watch.tell()
        if self._db.health.gone is not None:
            logger.debug("job %s skipped: %s", spec.job_id, self._db.health.gone)
            return "skipped"
        if spec.per_instance:
            return await self._run_here(spec)
        now = self._clock()
        slot = spec.slot(now)
        try:
            async with self._db.write() as session:
                claimed = await jobs.claim_slot(session, spec.job_id, slot, self._owner, now)
                locked = claimed and await jobs.try_lock(
                    session, spec.job_id, self._owner, now, now + spec.lock_ttl
                )
                if claimed and not locked:
                    await jobs.finish_slot(session, spec.job_id, slot, "skipped")
            if not locked:
                return "skipped"
        except Exception:
            logger.exception("job %s: could not claim its slot", spec.job_id)
            return "error"
        outcome, detail = await self._call(spec)
        try:
            async with self._db.write() as session:
                await jobs.finish(session, spec.job_id, self._owner, self._clock(), outcome, detail)
                await jobs.finish_slot(session, spec.job_id, slot, outcome)
        except Exception:
            logger.exception("job %s: could not record its outcome", spec.job_id)
        return outcome

    async def _run_here(self, spec: JobSpec) -> str:
        outcome, detail = await self._call(spec)
        try:
            async with self._db.write() as session:
                await jobs.record(session, spec.job_id, self._clock(), outcome, detail)
        except Exception:
            logger.exception("job %s: could not record its outcome", spec.job_id)
        return outcome

    @staticmethod
    async def _call(spec: JobSpec) -> tuple[str, str]:
        try:
            return "ok", await spec.func()
        except Exception as exc:
            logger.exception("job %s failed", spec.job_id)
            return "error", f"{type(exc).__name__}: {exc}"


def default_jobs(
    db: Database,
    *,
    sweep: ExpertiseSweep,
    cache: ProfileCache,
    sync: MemorySync,
    clock: Clock = utcnow,
    watcher: AlertWatcher | None = None,
    nightly: NightlyJob | None = None,
    nightly_at: tuple[int, int] = (3, 0),
    farm_timezone: str = "Europe/Kyiv",
    learner: ProfileLearner | None = None,
    agronomist: AgronomistDesk | None = None,
    notify: Notify | None = None,
    conversations: Conversations | None = None,
    wal: WalCheckpointer | None = None,
    reminders: PlanReminders | None = None,
    remind: Send | None = None,
    forecasts: Forecasts | None = None,
    warnings: WeatherWarnings | None = None,
) -> list[JobSpec]:
    """Every job of the bot: the memory's and retention's always, the others where the
    service they run is given."""
    specs = _memory_jobs(db, sweep, cache, sync, clock)
    if learner is not None:
        specs.append(_profile_learning_job(learner))
    if wal is not None:
        specs.append(_wal_checkpoint_job(wal))
    if watcher is not None:
        specs.append(_sensor_watch_job(watcher))
    if agronomist is not None and notify is not None:
        specs.append(_agronomist_expiry_job(agronomist, notify))
    if conversations is not None:
        specs += _conversation_jobs(conversations)
    if nightly is not None:
        specs.append(_nightly_job(nightly, nightly_at, farm_timezone))
    if reminders is not None and remind is not None:
        specs.append(_plan_reminders_job(reminders, remind, clock))
    if forecasts is not None and forecasts.enabled:
        specs.append(_weather_job(forecasts, warnings))
    return specs


_MINUTE = timedelta(minutes=1)


def _memory_jobs(
    db: Database, sweep: ExpertiseSweep, cache: ProfileCache, sync: MemorySync, clock: Clock
) -> list[JobSpec]:
    """The expertise sweep, the cache expiry, the memory outbox and text retention."""

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

    retention = TextRetention(db, clock=clock)

    async def text_retention() -> str:
        return (await retention.run()).describe()

    return [
        JobSpec(
            "expertise_sweep", CronTrigger(hour=3, minute=10), expertise_sweep, 3600, 30 * _MINUTE
        ),
        # This process's cache: every instance expires its own.
        JobSpec("cache_expiry", every(minutes=1), cache_expiry, 30, _MINUTE, per_instance=True),
        # `stepan memory sync` takes the same lock (pipeline/memory/service/flush_lock.py).
        JobSpec(FLUSH_JOB_ID, every(seconds=30), outbox_flush, 15, FLUSH_LOCK_TTL),
        JobSpec(
            "text_retention", CronTrigger(hour=3, minute=30), text_retention, 3600, 30 * _MINUTE
        ),
    ]


def _profile_learning_job(learner: ProfileLearner) -> JobSpec:
    # Typical intents leave their window and the season follows the calendar
    # even for farmers who write nothing (docs/memory.md, "Learning from use").
    async def profile_learning() -> str:
        return f"changed {await learner.sweep()}"

    return JobSpec(
        "profile_learning",
        CronTrigger(hour=3, minute=20),
        profile_learning,
        3600,
        30 * _MINUTE,
    )


def _wal_checkpoint_job(wal: WalCheckpointer) -> JobSpec:
    # SQLite's WAL, checkpointed here instead of inside a commit (db/checkpoint.py).
    # Every instance sharing the file may do it: a checkpoint is idempotent.
    async def wal_checkpoint() -> str:
        return (await wal.run()).describe()

    return JobSpec(
        "wal_checkpoint",
        every(seconds=CHECKPOINT_EVERY_S),
        wal_checkpoint,
        CHECKPOINT_EVERY_S,
        _MINUTE,
        per_instance=True,
    )


def _sensor_watch_job(watcher: AlertWatcher) -> JobSpec:
    # Sensor thresholds (pipeline/farm/sensors/alerts.py); only where something can send.
    async def sensor_watch() -> str:
        return (await watcher.run()).describe()

    return JobSpec("sensor_watch", every(minutes=5), sensor_watch, 120, 10 * _MINUTE)


def _agronomist_expiry_job(agronomist: AgronomistDesk, notify: Notify) -> JobSpec:
    # Questions nobody answered are closed, their farmers told (docs/knowledge.md).
    async def agronomist_expiry() -> str:
        notices = await agronomist.expire()
        told = 0
        for notice in notices:
            chat = telegram_id(notice.user_id)
            try:
                if chat is not None:
                    await notify(chat, notice.text)
                    told += 1
            except Exception:
                logger.warning("agronomist: could not tell %s", notice.user_id, exc_info=True)
        return f"expired {len(notices)}, told {told}"

    return JobSpec("agronomist_expiry", every(minutes=15), agronomist_expiry, 300, 10 * _MINUTE)


def _conversation_jobs(conversations: Conversations) -> list[JobSpec]:
    # Conversation memory (docs/memory.md): a conversation silent for 30 minutes
    # is compacted; weekly, summaries beyond the window become context notes.
    async def conversation_close() -> str:
        return f"compacted {await conversations.close_idle()}"

    async def conversation_fold() -> str:
        return f"folded {await conversations.fold()}"

    weekly = CronTrigger(day_of_week="mon", hour=4, minute=0)
    return [
        JobSpec("conversation_close", every(minutes=10), conversation_close, 300, 10 * _MINUTE),
        JobSpec("conversation_fold", weekly, conversation_fold, 3600, 60 * _MINUTE),
    ]


def _plan_reminders_job(reminders: PlanReminders, remind: Send, clock: Clock) -> JobSpec:
    # «Виконано?» for planned work whose day passed, in each farm's morning hours
    # (pipeline/farm/journal/edits/reminders.py); hourly, once per slot.
    async def plan_reminders() -> str:
        return await reminders.run(clock(), remind)

    return JobSpec("plan_reminders", every(hours=1), plan_reminders, 900, 10 * _MINUTE)


def _nightly_job(nightly: NightlyJob, nightly_at: tuple[int, int], farm_timezone: str) -> JobSpec:
    # The quality report and verified routing proposals (docs/learning.md), at
    # the farm's night; once across instances like every job here.
    async def nightly_quality() -> str:
        return (await nightly.run()).describe()

    hour, at_minute = nightly_at
    trigger = CronTrigger(hour=hour, minute=at_minute, timezone=ZoneInfo(farm_timezone))
    return JobSpec("nightly_quality", trigger, nightly_quality, 3600, 60 * _MINUTE)


def _weather_job(forecasts: Forecasts, warnings: WeatherWarnings | None) -> JobSpec:
    # The forecast cache (docs/weather.md): every active farm's locations, hourly,
    # several per request; once across instances, like every job here. Then the
    # frost warnings, from the fresh cache, where something can send them.
    async def weather_refresh() -> str:
        detail = (await forecasts.refresh()).describe()
        if warnings is not None:
            detail += "; " + (await warnings.run()).describe()
        return detail

    return JobSpec("weather_refresh", every(hours=1), weather_refresh, 600, 15 * _MINUTE)


def scheduler_hooks(
    scheduler: AsyncIOScheduler,
) -> tuple[Callable[[], Awaitable[None]], Callable[[], Awaitable[None]]]:
    """The dispatcher's startup and shutdown hooks that start and stop ``scheduler``."""

    async def start_jobs() -> None:
        scheduler.start()

    async def stop_jobs() -> None:
        scheduler.shutdown(wait=False)

    return start_jobs, stop_jobs


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
