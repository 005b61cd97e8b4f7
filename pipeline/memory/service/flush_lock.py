"""The outbox flush's job lock, shared by the scheduled ``outbox_flush`` job
(bot/wiring/scheduler.py) and ``stepan memory sync``: two flushers at once could send
the same upsert twice, and the memory-service, with no unique key on (user, key),
would then keep two rows. The lock is the job's row in ``job_runs``
(``db.repositories.jobs``): taken by one conditional UPDATE, expiring on its own if
its holder dies mid-run."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from db.repositories import jobs
from db.uow import Database
from pipeline.clock import Clock

#: The scheduled flush's job id: the name of the lock.
FLUSH_JOB_ID = "outbox_flush"
#: The lock expires after this even if its holder died mid-run.
FLUSH_LOCK_TTL = timedelta(minutes=5)


class FlushLockHeld(Exception):
    """Another flusher (the bot's job, another ``stepan memory sync``) holds the lock."""


@dataclass(slots=True)
class HeldLock:
    #: Stop sending before this: the lock expires then and another flusher may start.
    deadline: datetime
    outcome: str = "error"
    detail: str = "interrupted"


@asynccontextmanager
async def flush_lock(db: Database, owner: str, clock: Clock) -> AsyncIterator[HeldLock]:
    """Hold the flush's lock for the block, or raise FlushLockHeld at once. The block
    sets ``outcome`` and ``detail``, recorded as the job's last run (/status)."""
    now = clock()
    async with db.write() as session:
        locked = await jobs.try_lock(session, FLUSH_JOB_ID, owner, now, now + FLUSH_LOCK_TTL)
    if not locked:
        raise FlushLockHeld(FLUSH_JOB_ID)
    held = HeldLock(deadline=now + FLUSH_LOCK_TTL)
    try:
        yield held
    finally:
        async with db.write() as session:
            await jobs.finish(session, FLUSH_JOB_ID, owner, clock(), held.outcome, held.detail)
