"""Scheduled jobs: once across instances, outcomes recorded, retention."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.wiring.scheduler import JobRunner, JobSpec, build_scheduler, default_jobs
from db.models import InteractionRow, JobRunRow
from db.uow import Database
from pipeline.memory import Memory, build_memory
from tests.conftest import make_settings
from tests.integration.bot_harness import running_bot

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _jobs(db: Database, memory: Memory) -> list[JobSpec]:
    return default_jobs(
        db,
        sweep=memory.sweep,
        cache=memory.cache,
        sync=memory.sync,
        clock=lambda: NOW,
        learner=memory.learner,
    )


def _spec(func: object, job_id: str = "probe") -> JobSpec:
    return JobSpec(job_id, IntervalTrigger(seconds=30), func, 10, timedelta(minutes=5))  # type: ignore[arg-type]


async def _run_row(factory: async_sessionmaker[AsyncSession], job_id: str) -> JobRunRow:
    async with factory() as session:
        row = await session.get(JobRunRow, job_id)
        assert row is not None
        return row


async def test_a_job_runs_once_across_instances(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    calls = 0

    async def slow() -> str:
        nonlocal calls
        calls += 1
        started.set()
        await release.wait()
        return "done"

    first = JobRunner(Database(session_factory), "instance-a", clock=lambda: NOW)
    second = JobRunner(Database(session_factory), "instance-b", clock=lambda: NOW)
    running = asyncio.create_task(first.run(_spec(slow)))
    await started.wait()
    assert await second.run(_spec(slow)) == "skipped"
    release.set()
    assert await running == "ok"
    assert calls == 1
    row = await _run_row(session_factory, "probe")
    assert row.last_outcome == "ok" and row.last_detail == "done" and row.runs == 1
    assert row.locked_by is None
    # Lock released: the other instance may run it at the next slot.
    later = JobRunner(
        Database(session_factory), "instance-b", clock=lambda: NOW + timedelta(seconds=30)
    )
    assert await later.run(_spec(slow)) == "ok"


async def test_expired_lock_of_a_dead_instance_is_taken_over(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async def ok() -> str:
        return ""

    async with session_factory() as session:
        session.add(
            JobRunRow(
                job_id="probe", locked_by="dead", locked_until=NOW - timedelta(seconds=1), runs=0
            )
        )
        await session.commit()
    assert (
        await JobRunner(Database(session_factory), "alive", clock=lambda: NOW).run(_spec(ok))
        == "ok"
    )


async def test_failure_is_recorded_not_raised(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async def boom() -> str:
        raise RuntimeError("memory-service exploded")

    assert await JobRunner(Database(session_factory), "a").run(_spec(boom)) == "error"
    row = await _run_row(session_factory, "probe")
    assert row.last_outcome == "error" and "exploded" in (row.last_detail or "")
    assert row.locked_by is None


async def test_text_retention_keeps_metadata(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async with session_factory() as session:
        for age_days, text in ((8, "старе"), (6, "свіже")):
            session.add(
                InteractionRow(
                    trace_id=f"t{age_days}",
                    user_id="tg:1",
                    chat_id=1,
                    mode="light",
                    intent="greeting",
                    crew=[],
                    confidence=1.0,
                    reason="r",
                    latency_ms=1.0,
                    text=text,
                    created_at=NOW - timedelta(days=age_days),
                )
            )
        await session.commit()
    db = Database(session_factory)
    spec = next(s for s in _jobs(db, build_memory(db)) if s.job_id == "text_retention")
    assert await JobRunner(Database(session_factory), "a", clock=lambda: NOW).run(spec) == "ok"
    async with session_factory() as session:
        rows = (
            (await session.execute(select(InteractionRow).order_by(InteractionRow.trace_id)))
            .scalars()
            .all()
        )
    assert [(r.trace_id, r.text, r.intent) for r in rows] == [
        ("t6", "свіже", "greeting"),
        ("t8", None, "greeting"),
    ]
    assert (await _run_row(session_factory, "text_retention")).last_detail == "cleared 1"


def test_jobs_have_fixed_ids_grace_and_no_overlap(db: Database) -> None:
    specs = _jobs(db, build_memory(db))
    scheduler: AsyncIOScheduler = build_scheduler(JobRunner(None, "x"), specs)  # type: ignore[arg-type]
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {
        "expertise_sweep",
        "profile_learning",
        "cache_expiry",
        "outbox_flush",
        "text_retention",
    }
    for job in jobs.values():
        assert job.max_instances == 1 and job.coalesce is True
        assert job.misfire_grace_time is not None and job.misfire_grace_time > 0
    assert jobs["outbox_flush"].trigger.interval == timedelta(seconds=30)
    assert jobs["cache_expiry"].trigger.interval == timedelta(minutes=1)


async def test_scheduler_starts_and_stops_with_the_dispatcher(sqlite_url: str) -> None:
    async with running_bot(make_settings(sqlite_url)) as harness:
        scheduler = harness.dispatcher["scheduler"]
        await harness.say(5, "привіт")  # polling is up, so startup hooks ran
        assert scheduler.running
    assert not scheduler.running
