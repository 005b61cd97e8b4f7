"""Volume benchmark: does a message cost the same on a big database as on a small one,
and do the scheduled jobs keep conversations waiting? (issue 17)

    .venv/bin/python bench/volume.py [--users N] [--interactions M] [--json]
        [--small-users 100] [--messages 600] [--active 1000] [--database-url URL]
        [--cache-size N] [--jobs ID,ID]

Two databases are built through the project's own migrations and filled with bulk
inserts (bench/volume_data.py): a small one (``--small-users``, interactions in the
same proportion) and a big one (N users, M interactions, two operations per user,
readings for one farm in ten). On each, the bot's own services (``build_core``, the
production wiring, no Telegram) answer:

1. a warm-up message from each of ``--active`` farmers (the ones who write within
   one cache TTL; at most the database's users), then
2. ``--messages`` messages from those farmers, light and deep interleaved (every
   fifth is deep, answered by the template path without an LLM), alternating between
   the small and the big database so machine load hits both alike. Latency is
   ``Pipeline.handle_message`` end to end (profile load, classification, reply,
   recording). As in ``stepan run``, the heap is frozen after the warm-up and SQLite's
   WAL is checkpointed every 10 s by the checkpoint job's code.

Then, on the big database, every scheduled job of ``stepan run`` (taken from the
dispatcher's scheduler, so exactly the production list) runs once through the
JobRunner while a prober sends light messages one after another; a job's wait is the
worst prober latency while it ran.

``--json`` prints ``{"p50_ratio", "p99_ratio", "max_ms_big", "job_max_wait_ms",
"jobs": {name: wall_s}}`` plus the sizes and absolute figures; ``job_wait_ms`` has
each job's worst prober latency and, as ``"(no job)"``, the prober's worst over two
seconds with no job running: on a loaded machine that floor is what scheduling
costs, and a job's figure means something only above it; ``job_max_transaction_ms``
has each job's longest transaction (BEGIN to COMMIT, the job's or a probe's): on
SQLite what a waiting message waits for at most per turn, load or not. Ratios are
big/small of light messages. ``default_profile_fallbacks`` counts messages answered
with a default profile because theirs could not be read in time (the goal: none).
``--database-url`` (PostgreSQL: a server URL whose user may create databases) builds
both databases there instead of SQLite files; they are dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for entry in (REPO, REPO / "bench"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from pipeline.crew.env import silence_crewai  # noqa: E402

silence_crewai()

from light_path import percentile  # noqa: E402
from sqlalchemy import event, text  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncEngine  # noqa: E402
from volume_data import Sizes, build_database, chat_id, user_id  # noqa: E402

from bot.config import AgxSettings, Settings, StepanSettings  # noqa: E402
from bot.middlewares.heap import HeapFreezer  # noqa: E402
from bot.wiring.dispatcher import build_dispatcher  # noqa: E402
from bot.wiring.factory import Core, build_core  # noqa: E402
from bot.wiring.scheduler import JobRunner, JobSpec  # noqa: E402
from db.checkpoint import CHECKPOINT_EVERY_S, WalCheckpointer  # noqa: E402
from db.engine import create_engine  # noqa: E402
from pipeline.types import Incoming  # noqa: E402

LIGHT_TEXTS = ("привіт", "дякую", "ок", "добрий ранок", "thanks", "дякую, все зрозуміло")
DEEP_TEXTS = ("сплануй роботи на тиждень", "що я робив на полі минулого місяця")
DEEP_EVERY = 5
SMALL_USERS = 100
#: In ``job_wait_ms``: the prober's worst latency with no job running (the floor).
IDLE = "(no job)"


def settings_for(url: str, cache_size: int | None = None) -> Settings:
    stepan = StepanSettings(_env_file=None, database_url=url, log_level="WARNING")
    if cache_size is not None:
        stepan = stepan.model_copy(update={"profile_cache_size": cache_size})
    return Settings(stepan=stepan, agx=AgxSettings(_env_file=None))


@dataclass(slots=True)
class Side:
    """One database and the bot's services over it."""

    name: str
    users: int
    core: Core
    active: int
    sent: int = 0

    def incoming(self, message_text: str, n: int | None = None) -> Incoming:
        self.sent += 1
        n = self.sent % self.active if n is None else n
        return Incoming(user_id(n), chat_id(n), message_text, uuid.uuid4().hex[:16])

    async def say(self, message_text: str, n: int | None = None) -> float:
        """One message end to end; milliseconds."""
        started = time.perf_counter()
        await self.core.pipeline.handle_message(self.incoming(message_text, n))
        return (time.perf_counter() - started) * 1000


async def warm_up(side: Side) -> None:
    for n in range(side.active):
        await side.say(LIGHT_TEXTS[n % len(LIGHT_TEXTS)], n)


async def interleaved(small: Side, big: Side, messages: int) -> dict[str, list[float]]:
    light: dict[str, list[float]] = {"small": [], "big": []}
    for i in range(messages):
        deep = i % DEEP_EVERY == DEEP_EVERY - 1
        message_text = (DEEP_TEXTS if deep else LIGHT_TEXTS)[i % 2 if deep else i % 6]
        for side in (small, big) if i % 2 == 0 else (big, small):
            ms = await side.say(message_text)
            if not deep:
                light[side.name].append(ms)
    return light


class TransactionTimes:
    """How long each transaction on ``engine`` held its connection (BEGIN to COMMIT or
    ROLLBACK), in ms: on SQLite the time a waiting message may have to wait, whatever
    the machine's load does to the prober."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.held: list[float] = []
        self._started: dict[int, float] = {}
        sync = engine.sync_engine
        event.listen(sync, "begin", self._begin)
        event.listen(sync, "commit", self._end)
        event.listen(sync, "rollback", self._end)

    def _begin(self, connection: Any) -> None:
        self._started[id(connection)] = time.perf_counter()

    def _end(self, connection: Any) -> None:
        started = self._started.pop(id(connection), None)
        if started is not None:
            self.held.append((time.perf_counter() - started) * 1000)

    def worst_since(self, index: int) -> float:
        return round(max(self.held[index:], default=0.0), 1)


async def jobs_with_prober(
    side: Side, only: set[str] | None = None
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Each scheduled job once (those in ``only`` when given), a light-message prober
    running alongside; returns wall seconds, the worst prober latency (ms) and the
    longest transaction (ms, the job's or a probe's) per job."""
    dispatcher = build_dispatcher(side.core)
    specs: list[JobSpec] = [
        job.args[0] for job in dispatcher["scheduler"].get_jobs() if only is None or job.id in only
    ]
    runner = JobRunner(side.core.db, "bench-volume")
    times = TransactionTimes(side.core.engine)
    walls: dict[str, float] = {}
    holds: dict[str, float] = {}
    # The floor to read the waits against: the prober alone for two seconds.
    done = asyncio.Event()
    prober = asyncio.create_task(_probe(side, done))
    await asyncio.sleep(2.0)
    done.set()
    waits: dict[str, float] = {IDLE: round(max(await prober), 1)}
    for spec in specs:
        done = asyncio.Event()
        prober = asyncio.create_task(_probe(side, done))
        await asyncio.sleep(0)
        first = len(times.held)
        started = time.perf_counter()
        outcome = await runner.run(spec)
        walls[spec.job_id] = round(time.perf_counter() - started, 3)
        done.set()
        probes = await prober
        if outcome != "ok":
            raise RuntimeError(f"job {spec.job_id}: {outcome}")
        waits[spec.job_id] = round(max(probes), 1)
        holds[spec.job_id] = times.worst_since(first)
        progress(
            f"job {spec.job_id}: {walls[spec.job_id]} s, prober max {waits[spec.job_id]} ms, "
            f"longest transaction {holds[spec.job_id]} ms"
        )
    return walls, waits, holds


def progress(line: str) -> None:
    """A line on stderr as each phase ends (a long run shows where it is)."""
    print(line, file=sys.stderr, flush=True)


async def checkpointing(url: str) -> None:
    """The wal_checkpoint job's schedule (the bench runs no scheduler)."""
    checkpointer = WalCheckpointer.for_url(url)
    while checkpointer is not None:
        await asyncio.sleep(CHECKPOINT_EVERY_S)
        await checkpointer.run()


async def _probe(side: Side, done: asyncio.Event) -> list[float]:
    """Light messages one after another until ``done``; their latencies (ms)."""
    probes: list[float] = []
    while not done.is_set():
        probes.append(await side.say(LIGHT_TEXTS[len(probes) % len(LIGHT_TEXTS)]))
    return probes


@asynccontextmanager
async def databases(
    server_url: str | None, sizes: dict[str, Sizes]
) -> AsyncIterator[dict[str, str]]:
    """A fresh database per side: SQLite files in a temporary directory, or databases
    created on the PostgreSQL server (dropped afterwards)."""
    tag = uuid.uuid4().hex[:8]
    if server_url is None:
        with tempfile.TemporaryDirectory(prefix="bench-volume-") as tmp:
            yield {name: f"sqlite+aiosqlite:///{tmp}/{name}.db" for name in sizes}
        return
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    names = {name: f"stepan_volume_{name}_{tag}" for name in sizes}
    base = server_url.rsplit("/", 1)[0]
    try:
        async with admin.connect() as conn:
            for db_name in names.values():
                await conn.execute(text(f'CREATE DATABASE "{db_name}"'))
        yield {name: f"{base}/{db_name}" for name, db_name in names.items()}
    finally:
        async with admin.connect() as conn:
            for db_name in names.values():
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)'))
        await admin.dispose()


class Fallbacks(logging.Handler):
    """Counts the messages answered with a default profile because their profile
    could not be read (pipeline/memory/profiles/loading.py logs each): a conversation locked
    out of the database until its turn timed out. Listens while in a ``with``."""

    LOGGER = "pipeline.memory.profiles.loading"

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self._logger = logging.getLogger(self.LOGGER)
        self._level = self._logger.level

    def __enter__(self) -> Fallbacks:
        self._logger.setLevel(logging.WARNING)
        self._logger.addHandler(self)
        return self

    def __exit__(self, *_: object) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)

    def emit(self, record: logging.LogRecord) -> None:
        if "fallback to default profile" in record.getMessage():
            self.count += 1


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with Fallbacks() as fallbacks:
        result = await _run(args)
    result["default_profile_fallbacks"] = fallbacks.count
    return result


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    now = datetime.now(UTC).replace(microsecond=0)
    per_user = args.interactions / args.users
    sizes = {
        "small": Sizes(args.small_users, round(args.small_users * per_user)),
        "big": Sizes(args.users, args.interactions),
    }
    result: dict[str, Any] = {}
    async with databases(args.database_url, sizes) as urls:
        build_s = {}
        for name, size in sizes.items():
            started = time.perf_counter()
            await build_database(urls[name], size, now)
            build_s[name] = round(time.perf_counter() - started, 1)
            progress(f"built {name}: {size} in {build_s[name]} s")
        cores = {name: build_core(settings_for(url, args.cache_size)) for name, url in urls.items()}
        # As `stepan run`: SQLite's WAL checkpointed every few seconds by the job.
        checkpoints = [asyncio.create_task(checkpointing(url)) for url in urls.values()]
        try:
            small, big = (
                Side(name, sizes[name].users, cores[name], min(args.active, sizes[name].users))
                for name in ("small", "big")
            )
            for side in (small, big):
                await warm_up(side)
            HeapFreezer().freeze()  # as `stepan run` does once it is up and warm
            light = await interleaved(small, big, args.messages)
            progress(
                "light p50 ms small/big: "
                f"{percentile(light['small'], 50):.2f}/{percentile(light['big'], 50):.2f}, "
                f"p99 {percentile(light['small'], 99):.2f}/{percentile(light['big'], 99):.2f}"
            )
            only = None if args.jobs is None else {j for j in args.jobs.split(",") if j}
            walls, waits, holds = await jobs_with_prober(big, only)
        finally:
            for task in checkpoints:
                task.cancel()
            await asyncio.gather(*checkpoints, return_exceptions=True)
            for core in cores.values():
                await core.close()
    p50 = {name: percentile(values, 50) for name, values in light.items()}
    p99 = {name: percentile(values, 99) for name, values in light.items()}
    result.update(
        p50_ratio=round(p50["big"] / p50["small"], 3),
        p99_ratio=round(p99["big"] / p99["small"], 3),
        max_ms_big=round(max(light["big"]), 2),
        job_max_wait_ms=max((ms for job, ms in waits.items() if job != IDLE), default=0.0),
        jobs=walls,
        job_wait_ms=waits,
        job_max_transaction_ms=holds,
        p50_ms={k: round(v, 2) for k, v in p50.items()},
        p99_ms={k: round(v, 2) for k, v in p99.items()},
        database="postgresql" if args.database_url else "sqlite",
        users=args.users,
        interactions=args.interactions,
        operations=sizes["big"].operations,
        readings=sizes["big"].readings,
        active=min(args.active, args.users),
        cache_size=cores["big"].memory.cache.max_entries,
        light_messages=len(light["big"]),
        build_s=build_s,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=20_000, help="big database users")
    parser.add_argument("--interactions", type=int, default=400_000, help="big database rows")
    parser.add_argument("--small-users", type=int, default=SMALL_USERS)
    parser.add_argument("--messages", type=int, default=600, help="measured rounds per side")
    parser.add_argument("--active", type=int, default=1000, help="farmers who write")
    parser.add_argument("--database-url", default=None, help="PostgreSQL server URL")
    parser.add_argument(
        "--jobs", default=None, help="comma-separated job ids to run (default: all; '' none)"
    )
    parser.add_argument(
        "--cache-size", type=int, default=None, help="STEPAN_PROFILE_CACHE_SIZE (default: its)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if min(args.users, args.small_users, args.messages, args.active) < 1:
        parser.error("sizes must be at least 1")
    if args.interactions < 0:
        parser.error("--interactions must not be negative")
    logging.basicConfig(level=logging.ERROR)
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for key, value in result.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
