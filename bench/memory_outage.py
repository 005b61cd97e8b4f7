"""Memory-service outage benchmark: what a down or hanging memory-service costs a farmer.

    python bench/memory_outage.py [--messages N] [--blocks B] [--new-share F]
                                  [--concurrency C] [--flush-every S] [--json]

Three scenarios, one per mode of the fake memory-service (tests/fakes/memory_service.py,
real HTTP on 127.0.0.1): healthy, down, hanging - and, for reference, "none": no
memory-service configured at all. Each has its own migrated SQLite database and
memory layer. ``--known`` users talk once while the service is healthy
(so SQL knows them and the outbox is flushed); then the service is switched to the
scenario's mode and ``--warmup`` messages are sent, unmeasured. Then
``Pipeline.handle_message`` is timed for light messages from a mix of known users and
NEW users (``--new-share``; a new user makes the memory layer try to hydrate them
from the memory-service), ``--concurrency`` at a time, while the outbox flush runs in
the background as the scheduler job would (every ``--flush-every`` seconds; the job's
30 s would barely run inside a measurement). The scenarios are measured in
interleaved blocks, in a shuffled order each round, so whatever else the machine
does hits every mode alike.

The memory layer uses the production settings: 2 s timeout, breaker opening after 5
consecutive failures with a 30 s cool-down, 3 attempts with backoff for the flush.

Reported: p50 / p99 latency per scenario in milliseconds, and each outage's p50
divided by the healthy p50 (``down_ratio``, ``hanging_ratio``: ratios of p50) and by
the no-service p50 (``down_vs_none``, ``hanging_vs_none``). The fake runs in this
process, so in "healthy" its request handling shares the event loop with the
conversations. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.crew.env import silence_crewai  # noqa: E402

silence_crewai()

import httpx  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from bot.config import AgxSettings, Settings, StepanSettings  # noqa: E402
from bot.wiring.factory import build_pipeline  # noqa: E402
from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.memory import MemorySync, build_memory  # noqa: E402
from pipeline.memory.service.auth import Credentials  # noqa: E402
from pipeline.memory.service.client import MemoryServiceClient  # noqa: E402
from pipeline.types import Incoming  # noqa: E402
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService, Mode  # noqa: E402

MODES: tuple[Mode, ...] = ("healthy", "down", "hanging")
#: A fourth scenario for reference: no memory-service configured at all (SQL only).
NONE = "none"
SCENARIOS: tuple[str, ...] = (*MODES, NONE)
LIGHT_TEXTS = ("привіт", "дякую", "хто я", "добре", "hello Stepan", "thanks")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def _flush_forever(sync: MemorySync, every: float) -> None:
    while True:
        await sync.flush()
        await asyncio.sleep(every)


class Scenario:
    """One mode: its own database, fake memory-service and memory layer."""

    def __init__(self, mode: str, args: argparse.Namespace, tmp: Path) -> None:
        self.mode = mode
        self.args = args
        self.rng = random.Random(f"{args.seed}:{mode}")
        self.url = f"sqlite+aiosqlite:///{tmp / f'{mode}.db'}"
        self.latencies: list[float] = []
        self.counter = 0
        self.known = [f"tg:known{n}" for n in range(args.known)]
        self.new_users = 0
        self._stack = contextlib.AsyncExitStack()

    async def start(self, catalog: Catalog) -> None:
        await asyncio.to_thread(upgrade, self.url)
        settings = Settings(
            stepan=StepanSettings(_env_file=None, database_url=self.url),
            agx=AgxSettings(_env_file=None),
        )
        self.engine = create_engine(self.url)
        db = Database.of(self.engine)
        self.service = await self._stack.enter_async_context(FakeMemoryService())
        http = await self._stack.enter_async_context(httpx.AsyncClient())
        # Production settings: 2 s timeout, 5 failures open the breaker for 30 s; a
        # signed JWT per call, as the real service wants (the fake checks it).
        credentials = Credentials(jwt_secret=SecretStr(JWT_SECRET))
        client = (
            MemoryServiceClient(self.service.base_url, http, credentials=credentials)
            if self.mode != NONE
            else None
        )
        self.memory = build_memory(db, client)
        self.pipeline = build_pipeline(settings, db, catalog, memory=self.memory)
        for user in self.known:  # SQL knows them before the outage starts
            await self.message(user)
        while (await self.memory.sync.flush()).pending:
            pass
        if self.mode != NONE:
            await self.service.set_mode(self.mode)  # type: ignore[arg-type]
        # Warm-up, not measured: in "hanging" the first new users wait for the
        # timeout until their failures open the breaker - the price of noticing.
        await self.block(self.args.warmup, measure=False)
        self.requests_before = self.service.count()

    async def close(self) -> None:
        await self._stack.aclose()
        await self.engine.dispose()

    def next_user(self) -> str:
        if self.rng.random() < self.args.new_share:
            self.new_users += 1
            return f"tg:new{self.new_users}"
        return self.rng.choice(self.known)

    async def message(self, user: str) -> float:
        self.counter += 1
        incoming = Incoming(
            user_id=user,
            chat_id=self.counter,
            text=self.rng.choice(LIGHT_TEXTS),
            trace_id=f"{self.mode[:2]}{self.counter:014d}",
            first_name="Оксана",
        )
        started = time.perf_counter()
        await self.pipeline.handle_message(incoming)
        return (time.perf_counter() - started) * 1000

    async def block(self, count: int, *, measure: bool = True) -> None:
        """``count`` messages, ``concurrency`` at a time, with the flush job running."""
        queue = [self.next_user() for _ in range(count)]
        flusher = asyncio.create_task(_flush_forever(self.memory.sync, self.args.flush_every))

        async def worker() -> None:
            while queue:
                latency = await self.message(queue.pop())
                if measure:
                    self.latencies.append(latency)

        try:
            await asyncio.gather(*(worker() for _ in range(self.args.concurrency)))
        finally:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher

    def result(self) -> dict[str, Any]:
        return {
            "p50_ms": statistics.median(self.latencies),
            "p99_ms": _percentile(self.latencies, 99),
            "max_ms": max(self.latencies),
            "messages": len(self.latencies),
            "new_users": self.new_users,
            "service_requests": self.service.count() - self.requests_before,
            "breaker": self.memory.sync.breaker_state,
        }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    catalog = Catalog.load()
    order = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        scenarios = {mode: Scenario(mode, args, Path(tmp)) for mode in SCENARIOS}
        try:
            for scenario in scenarios.values():
                await scenario.start(catalog)
            # Interleave the modes in small blocks (in a shuffled order each round) so
            # that whatever else the machine is doing hits every mode alike.
            per_block = max(1, args.messages // args.blocks)
            for _ in range(args.blocks):
                modes = list(SCENARIOS)
                order.shuffle(modes)
                for mode in modes:
                    await scenarios[mode].block(per_block)
            results = {mode: scenario.result() for mode, scenario in scenarios.items()}
        finally:
            for scenario in scenarios.values():
                with contextlib.suppress(Exception):
                    await scenario.close()
    healthy = results["healthy"]["p50_ms"]
    summary: dict[str, Any] = {}
    for mode in SCENARIOS:
        summary[f"{mode}_p50_ms"] = round(results[mode]["p50_ms"], 3)
        summary[f"{mode}_p99_ms"] = round(results[mode]["p99_ms"], 3)
    for mode in MODES[1:]:
        summary[f"{mode}_ratio"] = round(results[mode]["p50_ms"] / healthy, 3)
    for mode in MODES[1:]:
        summary[f"{mode}_vs_none"] = round(results[mode]["p50_ms"] / results[NONE]["p50_ms"], 3)
    summary["ratio_of"] = "p50"
    summary["details"] = results
    summary["settings"] = {
        "messages": per_block * args.blocks,
        "blocks": args.blocks,
        "warmup": args.warmup,
        "known_users": args.known,
        "new_share": args.new_share,
        "concurrency": args.concurrency,
        "flush_every_s": args.flush_every,
    }
    return summary


def _print_table(summary: dict[str, Any]) -> None:
    settings = summary["settings"]
    print(
        f"{settings['messages']} light messages per mode in {settings['blocks']} interleaved "
        f"blocks, {settings['concurrency']} at a time, {settings['new_share']:.0%} from new "
        f"users; outbox flush every {settings['flush_every_s']} s in the background"
    )
    print(f"{'mode':<8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>9} {'x healthy (p50)':>16}  service")
    healthy = summary["details"]["healthy"]["p50_ms"]
    for mode in SCENARIOS:
        detail = summary["details"][mode]
        ratio = f"{detail['p50_ms'] / healthy:.3f}"
        print(
            f"{mode:<8} {detail['p50_ms']:>8.2f} {detail['p99_ms']:>8.2f} "
            f"{detail['max_ms']:>9.1f} {ratio:>16}  "
            f"{detail['service_requests']} requests, breaker {detail['breaker']}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1200, help="measured, per mode")
    parser.add_argument("--blocks", type=int, default=12, help="interleaved rounds")
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--known", type=int, default=40)
    parser.add_argument("--new-share", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--flush-every", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)  # the outage's warnings are expected
    summary = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(summary))
    else:
        _print_table(summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
