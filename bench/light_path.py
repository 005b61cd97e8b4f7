"""Light-path benchmark: Stepan as a process against the fake Bot API, next to a bare
aiogram echo bot measured by the same harness in the same run.

    .venv/bin/python bench/light_path.py [--users N] [--messages M] [--json]

For each bot: start FakeBotAPI in this process, start the bot as a subprocess
(``python -m bot run`` with a fresh SQLite database and log level WARNING, or
``python -m tests.fakes.echo_bot``), let every user send one warm-up message, then
the measured phase: N users each send M light messages in a closed loop (a user sends
the next message only once the reply to the previous one has arrived). Latency is
from the update being queued in the fake to the fake receiving the reply's
sendMessage; throughput is messages / wall time of the measured phase. Each bot is
stopped with SIGTERM and must exit with code 0.

The fake runs in this process's event loop (uvloop when installed, no request
validation), and the CPU it used is printed, so one can see it does not dominate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.fakes.bot_api import FakeBotAPI  # noqa: E402

TOKEN = "123456:BENCH-token"
LIGHT_TEXTS = ("привіт", "дякую", "ок", "хто я", "добрий ранок", "thanks")
WARMUP_TEXT = "привіт"
FIRST_USER_ID = 700_000
START_TIMEOUT_S = 120.0
REPLY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0
GOAL_RATIO = 0.6
#: Goal for p99: under this multiple of the echo bot's (issue 14 point 8, issue 17 point 2).
GOAL_P99_FACTOR = 2.0
#: The per-user throttle's burst in the benchmark (every bucket stays full).
THROTTLE_BURST = 1_000_000


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    argv: tuple[str, ...]


STEPAN = BotSpec("stepan", (sys.executable, "-m", "bot", "run"))
ECHO = BotSpec("echo", (sys.executable, "-m", "tests.fakes.echo_bot"))


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    messages: int
    wall_s: float
    latencies_ms: tuple[float, ...]
    bot_cpu_s: float | None  #: the bot process's CPU time in the measured phase
    harness_cpu_s: float  #: this process's (fake API + clients) CPU time, same phase
    startup_s: float

    @property
    def msgs_per_s(self) -> float:
        return self.messages / self.wall_s

    @property
    def cpu_ms_per_msg(self) -> float | None:
        """The bot's CPU per measured message: robust on a loaded machine, where
        throughput and latency also measure the neighbours."""
        return None if self.bot_cpu_s is None else self.bot_cpu_s / self.messages * 1000

    @property
    def p50_ms(self) -> float:
        return percentile(self.latencies_ms, 50)

    @property
    def p99_ms(self) -> float:
        return percentile(self.latencies_ms, 99)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (p99 of 500 values is the 495th smallest)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), -(-len(ordered) * pct // 100)))
    return ordered[int(rank) - 1]


def process_cpu_s(pid: int) -> float | None:
    """utime + stime of a live process from /proc (None where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class BotRun:
    """One bot subprocess polling one FakeBotAPI."""

    def __init__(self, spec: BotSpec, api: FakeBotAPI, workdir: Path) -> None:
        self.spec = spec
        self.api = api
        self.workdir = workdir
        self.stderr_path = workdir / f"{spec.name}.stderr.log"
        self.proc: asyncio.subprocess.Process | None = None

    def stderr_tail(self, limit: int = 4000) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")[-limit:]
        except OSError:
            return ""

    async def start(self) -> float:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
        env.update(
            STEPAN_BOT_TOKEN=TOKEN,
            STEPAN_TELEGRAM_API_URL=self.api.base_url,
            STEPAN_DATABASE_URL=f"sqlite+aiosqlite:///{self.workdir / 'stepan.db'}",
            STEPAN_LOG_LEVEL="WARNING",
            # A simulated user sends faster than a farmer types: past the default
            # burst (30) the throttle would drop its messages (bot/transport/throttle.py).
            STEPAN_THROTTLE_BURST=str(THROTTLE_BURST),
            PYTHONPATH=str(REPO),
        )
        started = time.monotonic()
        with self.stderr_path.open("wb") as stderr:
            self.proc = await asyncio.create_subprocess_exec(
                *self.spec.argv,
                cwd=self.workdir,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
            )
        deadline = started + START_TIMEOUT_S
        while self.api.get_updates_calls == 0:
            if self.proc.returncode is not None:
                raise RuntimeError(
                    f"{self.spec.name} exited with {self.proc.returncode} before polling:\n"
                    f"{self.stderr_tail()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.spec.name} did not start polling in time")
            await asyncio.sleep(0.02)
        return time.monotonic() - started

    async def stop(self) -> int:
        proc = self.proc
        if proc is None:
            return 0
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        try:
            async with asyncio.timeout(STOP_TIMEOUT_S):
                return await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise RuntimeError(f"{self.spec.name} ignored SIGTERM for {STOP_TIMEOUT_S}s") from None


class Users:
    """N simulated users; each one sends and waits for its reply (closed loop)."""

    def __init__(self, api: FakeBotAPI, count: int) -> None:
        self.api = api
        self.ids = [FIRST_USER_ID + i for i in range(count)]
        self.replies = dict.fromkeys(self.ids, 0)  # replies each user has had so far

    async def send(self, user: int, text: str) -> float:
        """Send one message, wait for the reply; the latency in milliseconds."""
        update_id = self.api.push_message(user, text, first_name=f"Farmer{user % 1000}")
        self.replies[user] += 1
        calls = await self.api.wait_for_count(
            "sendMessage", self.replies[user], chat_id=user, timeout=REPLY_TIMEOUT_S
        )
        reply = calls[-1]
        return (reply.at - self.api.update_queued_at(update_id)) * 1000

    async def warm_up(self) -> None:
        await asyncio.gather(*(self.send(user, WARMUP_TEXT) for user in self.ids))

    async def run(self, messages: int) -> list[float]:
        async def one_user(index: int, user: int) -> list[float]:
            return [
                await self.send(user, LIGHT_TEXTS[(index + i) % len(LIGHT_TEXTS)])
                for i in range(messages)
            ]

        per_user = await asyncio.gather(*(one_user(i, u) for i, u in enumerate(self.ids)))
        return [latency for latencies in per_user for latency in latencies]


async def measure(spec: BotSpec, users: int, messages: int) -> Result:
    with tempfile.TemporaryDirectory(prefix=f"bench-{spec.name}-") as tmp:
        # validate=False: the fake's markup checks are not what is measured here.
        async with FakeBotAPI(token=TOKEN, validate=False) as api:
            run = BotRun(spec, api, Path(tmp))
            try:
                startup = await run.start()
                clients = Users(api, users)
                await clients.warm_up()
                assert run.proc is not None
                bot_cpu0 = process_cpu_s(run.proc.pid)
                harness_cpu0 = time.process_time()
                started = time.perf_counter()
                latencies = await clients.run(messages)
                wall = time.perf_counter() - started
                harness_cpu = time.process_time() - harness_cpu0
                bot_cpu1 = process_cpu_s(run.proc.pid)
                failed = [c for c in api.sent if not c.ok]
                if failed:
                    raise RuntimeError(f"{spec.name}: {len(failed)} failed calls: {failed[:3]}")
            except BaseException:
                print(f"--- {spec.name} stderr ---\n{run.stderr_tail()}", file=sys.stderr)
                await run.stop()
                raise
            code = await run.stop()
            if code != 0:
                raise RuntimeError(f"{spec.name} exited with {code}:\n{run.stderr_tail()}")
    bot_cpu = None if bot_cpu0 is None or bot_cpu1 is None else bot_cpu1 - bot_cpu0
    return Result(spec.name, len(latencies), wall, tuple(latencies), bot_cpu, harness_cpu, startup)


def _table(results: Sequence[Result], users: int, messages: int) -> str:
    lines = [
        f"light path: {users} users x {messages} messages, closed loop "
        f"(after 1 warm-up message per user)",
        f"{'bot':<8} {'msgs/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'bot CPU':>8} "
        f"{'CPU/msg':>8} {'fake CPU':>9} {'wall s':>7} {'start s':>8}",
    ]
    for r in results:
        bot_cpu = f"{r.bot_cpu_s / r.wall_s:.0%}" if r.bot_cpu_s is not None else "n/a"
        per_msg = f"{r.cpu_ms_per_msg:.2f}ms" if r.cpu_ms_per_msg is not None else "n/a"
        lines.append(
            f"{r.name:<8} {r.msgs_per_s:>8.1f} {r.p50_ms:>8.1f} {r.p99_ms:>8.1f} "
            f"{bot_cpu:>8} {per_msg:>8} {r.harness_cpu_s / r.wall_s:>9.0%} {r.wall_s:>7.2f} "
            f"{r.startup_s:>8.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=20, help="simulated users (default 20)")
    parser.add_argument(
        "--messages", type=int, default=25, help="measured messages per user (default 25)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.users < 1 or args.messages < 1:
        parser.error("--users and --messages must be at least 1")

    async def both() -> tuple[Result, Result]:
        stepan = await measure(STEPAN, args.users, args.messages)
        echo = await measure(ECHO, args.users, args.messages)
        return stepan, echo

    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is in the lock file
        stepan, echo = asyncio.run(both())
    else:
        stepan, echo = uvloop.run(both())

    ratio = stepan.msgs_per_s / echo.msgs_per_s
    p99_factor = stepan.p99_ms / echo.p99_ms
    cpu_ratio = (
        stepan.cpu_ms_per_msg / echo.cpu_ms_per_msg
        if stepan.cpu_ms_per_msg is not None and echo.cpu_ms_per_msg
        else None
    )
    if args.json:
        print(
            json.dumps(
                {
                    "stepan_msgs_per_s": round(stepan.msgs_per_s, 1),
                    "echo_msgs_per_s": round(echo.msgs_per_s, 1),
                    "ratio": round(ratio, 3),
                    "p50_ms": round(stepan.p50_ms, 2),
                    "p99_ms": round(stepan.p99_ms, 2),
                    "echo_p50_ms": round(echo.p50_ms, 2),
                    "echo_p99_ms": round(echo.p99_ms, 2),
                    "p99_factor": round(p99_factor, 2),
                    "cpu_ms_per_msg": _rounded(stepan.cpu_ms_per_msg),
                    "echo_cpu_ms_per_msg": _rounded(echo.cpu_ms_per_msg),
                    "cpu_ratio": _rounded(cpu_ratio),
                    "users": args.users,
                    "messages": args.messages,
                }
            )
        )
    else:
        print(_table((stepan, echo), args.users, args.messages))
        verdict = "met" if ratio >= GOAL_RATIO else "NOT met"
        print(f"ratio stepan/echo throughput: {ratio:.2f} (goal >= {GOAL_RATIO}: {verdict})")
        verdict = "met" if p99_factor < GOAL_P99_FACTOR else "NOT met"
        print(f"p99 stepan/echo: {p99_factor:.2f}x (goal < {GOAL_P99_FACTOR}x: {verdict})")
        if cpu_ratio is not None:
            print(f"bot CPU per message stepan/echo: {cpu_ratio:.2f}x")
    return 0


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


if __name__ == "__main__":
    sys.exit(main())
