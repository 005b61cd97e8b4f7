"""Jobs run once per slot across instances (bot/wiring/scheduler.py): every instance's
scheduler fires, each run claims its job id + trigger time in the database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import select

from bot.wiring.scheduler import JobRunner, JobSpec, build_scheduler, every
from db.engine import create_engine
from db.models import JobRunRow, JobSlotRow
from db.uow import Database

#: 12:00:07 UTC: seven seconds after a slot of a 30 s job.
START = datetime(2026, 11, 29, 12, 0, 7, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    name = "sqlite_url" if request.param == "sqlite" else "migrated_postgres_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    pool = {} if database_url.startswith("sqlite") else {"pool_size": 10}
    engine = create_engine(database_url, **pool)
    try:
        yield Database.of(engine)
    finally:
        await engine.dispose()


class Counter:
    def __init__(self) -> None:
        self.calls = 0
        self._changed = asyncio.Event()

    async def reached(self, calls: int) -> None:
        while self.calls < calls:
            self._changed.clear()
            await self._changed.wait()

    async def __call__(self) -> str:
        self.calls += 1
        self._changed.set()
        await asyncio.sleep(0)  # the other instance gets a turn mid-run
        return f"call {self.calls}"


def spec(func: Counter, job_id: str = "outbox_flush") -> JobSpec:
    return JobSpec(job_id, every(seconds=30), func, 15, timedelta(minutes=5))


async def slots(db: Database, job_id: str) -> list[tuple[datetime, str, str | None]]:
    async with db.read() as session:
        result = await session.execute(
            select(JobSlotRow.slot_at, JobSlotRow.claimed_by, JobSlotRow.outcome)
            .where(JobSlotRow.job_id == job_id)
            .order_by(JobSlotRow.slot_at)
        )
        return [(at.replace(tzinfo=UTC), owner, outcome) for at, owner, outcome in result.all()]


async def test_two_instances_run_each_slot_once(db: Database) -> None:
    clock = Clock()
    func = Counter()
    a, b = JobRunner(db, "instance-a", clock), JobRunner(db, "instance-b", clock)
    periods = 8
    outcomes = []
    for _ in range(periods):  # both schedulers fire at every trigger time
        outcomes += await asyncio.gather(a.run(spec(func)), b.run(spec(func)))
        clock.now += timedelta(seconds=30)
    assert func.calls == periods  # what one instance alone would run
    assert sorted(outcomes) == ["ok"] * periods + ["skipped"] * periods
    claimed = await slots(db, "outbox_flush")
    first = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert [at for at, _, _ in claimed] == [first + timedelta(seconds=30 * n) for n in range(8)]
    assert {outcome for _, _, outcome in claimed} == {"ok"}
    async with db.read() as session:
        row = await session.get(JobRunRow, "outbox_flush")
    assert row is not None and row.runs == periods


async def test_missed_slots_coalesce_into_one_run(db: Database) -> None:
    clock = Clock()
    func = Counter()
    runner = JobRunner(db, "instance-a", clock)
    assert await runner.run(spec(func)) == "ok"
    # Down for five minutes: APScheduler fires once (coalesce), within the grace.
    clock.now += timedelta(minutes=5, seconds=3)
    assert await runner.run(spec(func)) == "ok"
    assert func.calls == 2
    assert [at for at, _, _ in await slots(db, "outbox_flush")] == [
        datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
        datetime(2026, 11, 29, 12, 5, tzinfo=UTC),
    ]


async def test_a_slot_due_while_the_job_still_runs_is_skipped(db: Database) -> None:
    clock = Clock()
    started, release = asyncio.Event(), asyncio.Event()

    async def slow() -> str:
        started.set()
        await release.wait()
        return "done"

    job = JobSpec("sensor_watch", every(seconds=30), slow, 15, timedelta(minutes=10))
    running = asyncio.create_task(JobRunner(db, "a", clock).run(job))
    await started.wait()
    clock.now += timedelta(seconds=30)
    assert await JobRunner(db, "b", clock).run(job) == "skipped"
    release.set()
    assert await running == "ok"
    assert [outcome for _, _, outcome in await slots(db, "sensor_watch")] == ["ok", "skipped"]


def test_instances_started_at_different_times_share_the_slots() -> None:
    early, late = every(seconds=30), every(seconds=30)
    counter = Counter()
    now = START + timedelta(hours=5)
    assert spec(counter).slot(now) == datetime(2026, 11, 29, 17, 0, tzinfo=UTC)
    assert early.get_next_fire_time(None, now) == late.get_next_fire_time(None, now)
    nightly = JobSpec(
        "sweep", CronTrigger(hour=3, minute=10, timezone=UTC), counter, 3600, timedelta(minutes=30)
    )
    at = datetime(2026, 11, 30, 3, 40, tzinfo=UTC)
    assert nightly.slot(at) == datetime(2026, 11, 30, 3, 10, tzinfo=UTC)
    # By hand, off the schedule: its own slot.
    noon = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert nightly.slot(noon) == noon


async def test_two_real_schedulers_never_run_a_slot_twice(db: Database) -> None:
    func = Counter()
    job = JobSpec("probe", every(seconds=0.5), func, 1, timedelta(seconds=30))
    schedulers = [build_scheduler(JobRunner(db, f"i{n}"), [job]) for n in range(2)]
    for scheduler in schedulers:
        scheduler.start()
    try:
        await asyncio.wait_for(func.reached(4), 20)
    finally:
        for scheduler in schedulers:
            scheduler.shutdown(wait=False)
    await asyncio.sleep(0.2)  # a run already started finishes
    claimed = await slots(db, "probe")
    assert len(claimed) >= 4
    assert func.calls == len([row for row in claimed if row[2] != "skipped"])
    assert {owner for _, owner, _ in claimed} <= {"i0", "i1"}
