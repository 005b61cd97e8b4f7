"""The job_runs table (a lock so a job never overlaps itself, and its history) and
the job_slots table (each trigger time run once across instances)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import JobRunRow, JobSlotRow
from db.repositories.profiles import insert_ignore


async def try_lock(
    session: AsyncSession, job_id: str, owner: str, now: datetime, until: datetime
) -> bool:
    """Take the job's lock if it is free or expired; True when this owner holds it.

    One conditional UPDATE: on PostgreSQL and SQLite alike exactly one instance
    sees rowcount 1, even when all of them try at the same moment.
    """
    await insert_ignore(session, JobRunRow, {"job_id": job_id, "runs": 0})
    result = await session.execute(
        update(JobRunRow)
        .where(
            JobRunRow.job_id == job_id,
            or_(JobRunRow.locked_until.is_(None), JobRunRow.locked_until < now),
        )
        .values(locked_by=owner, locked_until=until, last_started_at=now)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


async def finish(
    session: AsyncSession, job_id: str, owner: str, now: datetime, outcome: str, detail: str
) -> None:
    await session.execute(
        update(JobRunRow)
        .where(JobRunRow.job_id == job_id, JobRunRow.locked_by == owner)
        .values(
            locked_by=None,
            locked_until=None,
            last_finished_at=now,
            last_outcome=outcome,
            last_detail=detail[:256],
            runs=JobRunRow.runs + 1,
        )
    )


@dataclass(frozen=True, slots=True)
class JobRun:
    """A plain snapshot: safe to read after the session rolled back or closed."""

    job_id: str
    last_outcome: str | None
    last_finished_at: datetime | None
    last_detail: str | None
    runs: int


async def all_runs(session: AsyncSession) -> list[JobRun]:
    result = await session.execute(select(JobRunRow).order_by(JobRunRow.job_id))
    return [
        JobRun(row.job_id, row.last_outcome, row.last_finished_at, row.last_detail, row.runs)
        for row in result.scalars()
    ]


async def claim_slot(
    session: AsyncSession, job_id: str, slot_at: datetime, owner: str, now: datetime
) -> bool:
    """Claim the run of ``job_id`` due at ``slot_at``; True for the one instance that
    inserted it (the others find the row: the slot is taken)."""
    return await insert_ignore(
        session,
        JobSlotRow,
        {"job_id": job_id, "slot_at": slot_at, "claimed_by": owner, "claimed_at": now},
    )


async def finish_slot(session: AsyncSession, job_id: str, slot_at: datetime, outcome: str) -> None:
    await session.execute(
        update(JobSlotRow)
        .where(JobSlotRow.job_id == job_id, JobSlotRow.slot_at == slot_at)
        .values(outcome=outcome)
    )


async def record(
    session: AsyncSession, job_id: str, now: datetime, outcome: str, detail: str
) -> None:
    """The outcome of a job every instance runs for itself (no lock to release)."""
    await insert_ignore(session, JobRunRow, {"job_id": job_id, "runs": 0})
    await session.execute(
        update(JobRunRow)
        .where(JobRunRow.job_id == job_id)
        .values(
            last_started_at=now,
            last_finished_at=now,
            last_outcome=outcome,
            last_detail=detail[:256],
            runs=JobRunRow.runs + 1,
        )
    )


async def slot_outcomes(session: AsyncSession) -> dict[tuple[str, str], int]:
    """Claimed slots by (job, outcome), for the metrics."""
    result = await session.execute(
        select(JobSlotRow.job_id, JobSlotRow.outcome, func.count()).group_by(
            JobSlotRow.job_id, JobSlotRow.outcome
        )
    )
    return {(job_id, outcome or "running"): int(n) for job_id, outcome, n in result.all()}


async def drop_slots_before(session: AsyncSession, cutoff: datetime) -> int:
    result = await session.execute(delete(JobSlotRow).where(JobSlotRow.slot_at < cutoff))
    return int(getattr(result, "rowcount", 0) or 0)
