"""Scale-out benchmark: 1 and 2 webhook instances on PostgreSQL and Redis.

    .venv/bin/python bench/scale.py [--users 10000] [--messages 2000] [--concurrency 40]
        [--llm-latency-ms 300] [--json]

For each configuration (one instance, then two): a fresh PostgreSQL database (migrated),
Redis db 14 flushed, the fake Bot API (tests/fakes/bot_api.py) answering the
instances' sendMessage, and webhook instances on their own ports
(``bench/scale_instance.py``: ``bot run --webhook`` with a scripted LLM at CrewAI's
BaseLLM boundary, tests/fakes/llm.py, answering every call after
``--llm-latency-ms``; ``--llm-latency-ms -1`` runs ``python -m bot run --webhook``
without an LLM, the templates and the offline composer). The load generator plays
Telegram: ``--concurrency`` closed loops POST updates with the secret token to the
instances in turn, each loop speaking for its own share of ``--users`` simulated
users (a user's next message waits for the reply to the previous one, as a person
would), ``--messages`` in all, a realistic mix of light messages (one LLM call each)
and deep requests (``--deep``, 10 %: the CrewAI crew, several LLM calls). Latency is
from the POST to the fake receiving the reply.

After each run the database is checked: ``lost`` counts messages without their
interaction row (nothing recorded), ``duplicated`` interactions recorded more than
once for one update or user counters above the messages sent. ``--json`` prints one
object: {"one_msgs_per_s", "two_msgs_per_s", "ratio", "p99_ms_one", "p99_ms_two",
"lost", "duplicated"}. On a 2-core machine the load generator, the fake, PostgreSQL
and Redis share the cores with the instances, so the ratio there says little about a
real deployment; run it where each instance has its own core.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import signal
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sqlalchemy import text  # noqa: E402

from bench.cpu_usage import CpuMeter, per_message  # noqa: E402
from bench.scale_instance import CALLS_LINE  # noqa: E402
from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from tests.fakes.bot_api import FakeBotAPI  # noqa: E402

TOKEN = "123456:SCALE-token"
SECRET = "scale-bench-secret"
PATH = "/telegram/webhook"
ADMIN_URL = os.environ.get(
    "STEPAN_BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("STEPAN_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
LIGHT = ("привіт", "дякую", "ок", "добрий ранок", "thanks", "хто я")
DEEP = ("яка вологість на полі 2", "що робити з попелицею на ріпаку", "план на тиждень")
FIRST_USER = 900_000
START_TIMEOUT_S = 180.0
REPLY_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Run:
    instances: int
    messages: int
    seconds: float
    p50_ms: float
    p99_ms: float
    lost: int
    duplicated: int
    #: Calls the instances' scripted LLMs answered (0 without an LLM).
    llm_calls: int = 0
    #: CPU seconds per part during the load (bench/cpu_usage.py), and ``wall``.
    cpu: dict[str, float] = field(default_factory=dict)
    #: The same over ``--idle-seconds`` with no load, before it.
    idle_cpu: dict[str, float] = field(default_factory=dict)

    @property
    def bot_busy_ms(self) -> float:
        """The instances' CPU per message less what they burn idle over as long."""
        if not self.messages or not self.idle_cpu.get("wall"):
            return 0.0
        idle_rate = self.idle_cpu["bot"] / self.idle_cpu["wall"]
        busy = self.cpu["bot"] - idle_rate * self.cpu["wall"]
        return max(0.0, busy) * 1000 / self.messages

    @property
    def msgs_per_s(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def admin(statement: str) -> None:
    engine = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def flush_redis() -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL)
    try:
        await client.flushdb()
    finally:
        await client.aclose()


def update(update_id: int, user: int, message_text: str) -> dict[str, Any]:
    sender = {"id": user, "is_bot": False, "first_name": "Фермер", "language_code": "uk"}
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(time.time()),
            "chat": {"id": user, "type": "private", "first_name": "Фермер"},
            "from": sender,
            "text": message_text,
        },
    }


async def start_instance(
    api: FakeBotAPI, url: str, port: int, workdir: Path, llm_latency_ms: float
) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
    env |= {
        "STEPAN_BOT_TOKEN": TOKEN,
        "STEPAN_TELEGRAM_API_URL": api.base_url,
        "STEPAN_DATABASE_URL": url,
        "STEPAN_REDIS_URL": REDIS_URL,
        "STEPAN_WEBHOOK_SECRET": SECRET,
        "STEPAN_WEBHOOK_PORT": str(port),
        "STEPAN_WEBHOOK_PATH": PATH,
        "STEPAN_THROTTLE_BURST": "100000",
        "STEPAN_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(REPO),
    }
    log = (workdir / f"instance-{port}.log").open("wb")
    command = (
        ["-m", "bot", "run", "--webhook"]
        if llm_latency_ms < 0
        else [str(REPO / "bench" / "scale_instance.py"), "--llm-latency-ms", str(llm_latency_ms)]
    )
    if llm_latency_ms >= 0:
        env["STEPAN_LLM_MODEL"] = "scripted-bench"  # /status and health say configured
    return await asyncio.create_subprocess_exec(
        sys.executable, *command,
        cwd=workdir, env=env, stdout=log, stderr=log, stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def wait_ready(session: aiohttp.ClientSession, port: int, proc: Any) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise RuntimeError(f"instance on {port} exited with {proc.returncode}")
        try:
            async with session.get(f"http://127.0.0.1:{port}/readyz") as response:
                if response.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError(f"instance on {port} not ready within {START_TIMEOUT_S}s")


async def run_config(instances: int, args: argparse.Namespace, workdir: Path) -> Run:
    name = f"stepan_scale_{uuid.uuid4().hex[:8]}"
    await admin(f'CREATE DATABASE "{name}"')
    url = ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    procs: list[Any] = []
    try:
        await upgrade_async(url)
        await flush_redis()
        async with FakeBotAPI(validate=False) as api, aiohttp.ClientSession() as http:
            ports = [free_port() for _ in range(instances)]
            procs = [
                await start_instance(api, url, port, workdir, args.llm_latency_ms) for port in ports
            ]
            for port, proc in zip(ports, procs, strict=True):
                await wait_ready(http, port, proc)
            meter = CpuMeter([proc.pid for proc in procs], name)
            run = await load(api, http, ports, url, instances, args, meter)
            await stop(procs)
            return replace(run, llm_calls=llm_calls(workdir, ports))
    finally:
        await stop(procs)
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def stop(procs: list[Any]) -> None:
    for proc in procs:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()


def llm_calls(workdir: Path, ports: list[int]) -> int:
    """What the instances' scripted LLMs answered (bench/scale_instance.py logs it)."""
    total = 0
    for port in ports:
        log = (workdir / f"instance-{port}.log").read_text(encoding="utf-8", errors="replace")
        for line in log.splitlines():
            if line.startswith(CALLS_LINE):
                total += int(line.rsplit(" ", 1)[1])
    return total


async def load(
    api: FakeBotAPI,
    http: aiohttp.ClientSession,
    ports: list[int],
    url: str,
    instances: int,
    args: argparse.Namespace,
    meter: CpuMeter,
) -> Run:
    rng = random.Random(14)
    update_ids = itertools.count(1)
    targets = itertools.cycle(ports)
    sent: dict[int, int] = {}
    latencies: list[float] = []
    # Warm-up first (each instance's first messages pay for lazy imports, caches and
    # new database connections): answered and checked, but neither timed nor metered.
    remaining = args.warmup * instances

    async def loop(index: int) -> None:
        nonlocal remaining
        users = list(range(FIRST_USER + index, FIRST_USER + args.users, args.concurrency))
        while remaining > 0:
            remaining -= 1
            user = rng.choice(users)
            message = rng.choice(DEEP) if rng.random() < args.deep else rng.choice(LIGHT)
            before = len(api.sent_messages(user))
            started = time.monotonic()
            body = update(next(update_ids), user, message)
            port = next(targets)
            async with http.post(
                f"http://127.0.0.1:{port}{PATH}",
                json=body,
                headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
            ) as response:
                assert response.status == 200, response.status
            sent[user] = sent.get(user, 0) + 1
            call = (await api.wait_for_count("sendMessage", before + 1, chat_id=user,
                                             timeout=REPLY_TIMEOUT_S))[-1]  # fmt: skip
            latencies.append((call.at - started) * 1000)

    await asyncio.gather(*(loop(index) for index in range(args.concurrency)))
    latencies.clear()
    # What the instances burn doing nothing (heartbeats, sweeps, jobs), to tell it
    # apart from what the messages cost.
    meter.start()
    await asyncio.sleep(args.idle_seconds)
    idle = meter.stop()
    remaining = args.messages
    started = time.monotonic()
    meter.start()
    await asyncio.gather(*(loop(index) for index in range(args.concurrency)))
    seconds = time.monotonic() - started
    cpu = meter.stop()
    lost, duplicated = await check(url, sent)
    latencies.sort()
    return Run(
        instances=instances,
        messages=len(latencies),
        seconds=seconds,
        p50_ms=latencies[len(latencies) // 2],
        p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        lost=lost,
        duplicated=duplicated,
        cpu=cpu,
        idle_cpu=idle,
    )


async def check(url: str, sent: dict[int, int]) -> tuple[int, int]:
    """From the database: messages with no interaction row, and anything recorded
    twice (one update twice, or a user's counter above what they sent)."""
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT COUNT(*), COUNT(DISTINCT update_id) FROM interactions")
            )
            total, distinct = rows.one()
            counters = dict(
                (
                    await conn.execute(text("SELECT user_id, interaction_count FROM user_profiles"))
                ).all()
            )
    finally:
        await engine.dispose()
    messages = sum(sent.values())
    over = sum(max(0, counters.get(f"tg:{u}", 0) - n) for u, n in sent.items())
    return max(0, messages - int(distinct)), int(total) - int(distinct) + over


def cpu_figures(one: Run, two: Run) -> dict[str, Any]:
    """CPU per message of each configuration (bench/cpu_usage.py) and what it says of
    scaling. ``instance_capacity_ratio``: two instances' capacity over one's when
    each instance has a core of its own and the shared parts keep up, from the
    instances' CPU per message, less what they burn idle (2.0: a second instance
    costs no extra CPU per message). ``cpu_bound_msgs_per_s_*``: this machine's ceiling for the
    configuration if nothing else ran (its cores over all our parts' CPU per message)."""
    cores = os.cpu_count() or 1
    figures: dict[str, Any] = {"cores": cores}
    for name, run in (("one", one), ("two", two)):
        cpu = per_message(run.cpu, run.messages)
        figures[f"cpu_ms_per_msg_{name}"] = cpu
        ours = cpu.get("ours_ms", 0.0)
        figures[f"cpu_bound_msgs_per_s_{name}"] = round(cores * 1000 / ours, 1) if ours else 0.0
        idle = run.idle_cpu
        figures[f"bot_idle_ms_per_s_{name}"] = (
            round(idle["bot"] * 1000 / idle["wall"], 1) if idle.get("wall") else 0.0
        )
        figures[f"bot_busy_ms_per_msg_{name}"] = round(run.bot_busy_ms, 2)
    bot_one, bot_two = one.bot_busy_ms, two.bot_busy_ms
    figures["instance_capacity_ratio"] = round(2 * bot_one / bot_two, 2) if bot_two else 0.0
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=10_000, help="simulated users (pool)")
    parser.add_argument("--messages", type=int, default=2_000, help="messages per configuration")
    parser.add_argument("--concurrency", type=int, default=40, help="closed loops at once")
    parser.add_argument("--deep", type=float, default=0.1, help="share of deep requests")
    parser.add_argument(
        "--llm-latency-ms",
        type=float,
        default=300.0,
        help="the scripted LLM's time per call; -1: no LLM (templates, offline composer)",
    )
    parser.add_argument(
        "--warmup", type=int, default=30, help="messages per instance before the measured load"
    )
    parser.add_argument(
        "--idle-seconds", type=float, default=5.0, help="idle CPU measured before the load"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="stepan-scale-") as tmp:
        one = asyncio.run(run_config(1, args, Path(tmp)))
        two = asyncio.run(run_config(2, args, Path(tmp)))
    ratio = two.msgs_per_s / one.msgs_per_s if one.msgs_per_s else 0.0
    result = {
        "one_msgs_per_s": round(one.msgs_per_s, 1),
        "two_msgs_per_s": round(two.msgs_per_s, 1),
        "ratio": round(ratio, 2),
        "p99_ms_one": round(one.p99_ms, 1),
        "p99_ms_two": round(two.p99_ms, 1),
        "lost": one.lost + two.lost,
        "duplicated": one.duplicated + two.duplicated,
        "llm_calls_one": one.llm_calls,
        "llm_calls_two": two.llm_calls,
        **cpu_figures(one, two),
        "load_average": [round(x, 2) for x in load_before],
    }
    if args.json:
        print(json.dumps(result))
    else:
        for run in (one, two):
            print(
                f"{run.instances} instance(s): {run.msgs_per_s:.1f} msg/s, "
                f"p50 {run.p50_ms:.0f} ms, p99 {run.p99_ms:.0f} ms, "
                f"lost {run.lost}, duplicated {run.duplicated}, LLM calls {run.llm_calls}"
            )
            cpu = per_message(run.cpu, run.messages)
            print(
                "  CPU ms per message: "
                + ", ".join(
                    f"{k.removesuffix('_ms')} {v}" for k, v in cpu.items() if k.endswith("_ms")
                )
                + f"; cores busy {cpu.get('cores_busy', 0)} of {os.cpu_count()}"
                + f"; instances busy {run.bot_busy_ms:.1f} ms per message"
            )
        print(f"2 / 1 instances: {ratio:.2f}x (goal 1.6x, 0 lost, 0 duplicated)")
        print(
            f"2 / 1 by the instances' CPU per message (each instance on a core of its own): "
            f"{result['instance_capacity_ratio']}x"
        )
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
