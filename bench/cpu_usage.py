"""CPU seconds spent by each part of a benchmark run, read from Linux's /proc.

``CpuMeter.start()`` before the load and ``stop()`` after it give, per part, the CPU
time (user + system) it used in between:

* ``bot``: the webhook instances (their process ids);
* ``postgres``: the backends serving the benchmark's own database (matched by the
  database name in their process title) plus PostgreSQL's background writers
  (WAL writer, checkpointer, background writer; shared with anything else using
  the server on this machine);
* ``redis``: the redis-server process (shared likewise);
* ``loadgen``: this process (the load generator and the fake Bot API);
* ``machine``: every core's busy time (``/proc/stat``), whoever used it, so
  ``machine - sum(parts)`` is what other programs took meanwhile.

A part that cannot be read (no /proc, another operating system) counts 0.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: PostgreSQL's own processes that write for every database.
PG_BACKGROUND = ("walwriter", "checkpointer", "background writer")
PARTS = ("bot", "postgres", "redis", "loadgen")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process (all its threads); 0 if gone."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return 0.0
    # The command name (field 2) may hold spaces: the fields after it are numbered
    # from the closing parenthesis.
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _titles() -> Iterable[tuple[int, str]]:
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        yield int(entry.name), title


def postgres_pids(database: str) -> set[int]:
    """The backends of ``database`` and the server's background writers."""
    pids = set()
    for pid, title in _titles():
        if not title.startswith("postgres:"):
            continue
        if f" {database} " in title or any(name in title for name in PG_BACKGROUND):
            pids.add(pid)
    return pids


def redis_pids() -> set[int]:
    return {pid for pid, title in _titles() if title.startswith("redis-server")}


def machine_busy() -> float:
    """CPU seconds every core spent not idle since boot."""
    try:
        line = (PROC / "stat").read_text().splitlines()[0]
    except OSError:
        return 0.0
    values = [int(v) for v in line.split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    # guest time is already counted in user time.
    return (sum(values[:8]) - idle) / TICK


#: Seconds between two looks at the processes while the meter runs.
SAMPLE_EVERY_S = 0.25


@dataclass
class CpuMeter:
    """Per-part CPU seconds between ``start`` and ``stop``.

    A database connection's backend may end before ``stop`` (a pool closing an
    overflow connection) and take its CPU time with it, so while the meter runs
    the processes are looked at every ``SAMPLE_EVERY_S`` and each one's last
    reading counts (a backend that ends loses at most its last quarter second)."""

    bot_pids: list[int]
    database: str
    used: dict[str, float] = field(default_factory=dict)
    _before: dict[int, float] = field(default_factory=dict)
    _last: dict[str, dict[int, float]] = field(default_factory=dict)
    _start: dict[str, float] = field(default_factory=dict)
    _sampler: asyncio.Task[None] | None = None

    def _pids(self) -> dict[str, set[int]]:
        return {
            "bot": set(self.bot_pids),
            "postgres": postgres_pids(self.database),
            "redis": redis_pids(),
        }

    def start(self) -> None:
        """Call from a running event loop (the sampler is a task of it)."""
        self._before = {pid: process_cpu(pid) for pids in self._pids().values() for pid in pids}
        self._last = {}
        self._start = {
            "loadgen": time.process_time(),
            "machine": machine_busy(),
            "wall": time.monotonic(),
        }
        self._sampler = asyncio.get_running_loop().create_task(self._sample_forever())

    def _sample(self) -> None:
        for part, pids in self._pids().items():
            seen = self._last.setdefault(part, {})
            for pid in pids:
                now = process_cpu(pid)
                if now or pid not in seen:  # 0: gone since the scan; keep its last reading
                    seen[pid] = max(now, seen.get(pid, 0.0))

    async def _sample_forever(self) -> None:
        while True:
            self._sample()
            await asyncio.sleep(SAMPLE_EVERY_S)

    def stop(self) -> dict[str, float]:
        """CPU seconds per part (and ``wall``, the seconds in between)."""
        if self._sampler is not None:
            self._sampler.cancel()
            self._sampler = None
        self._sample()
        used: dict[str, float] = {}
        for part, seen in self._last.items():
            # A process born meanwhile counts from 0 (a new connection's backend).
            used[part] = sum(
                max(0.0, cpu - self._before.get(pid, 0.0)) for pid, cpu in seen.items()
            )
        used["loadgen"] = time.process_time() - self._start["loadgen"]
        used["machine"] = machine_busy() - self._start["machine"]
        used["wall"] = time.monotonic() - self._start["wall"]
        self.used = used
        return used


def per_message(used: dict[str, float], messages: int) -> dict[str, float]:
    """CPU milliseconds per message for each part, ``ours`` (their sum), ``others``
    (the machine's busy time nobody of ours used) and ``cores_busy`` (how many cores
    the machine kept busy on average)."""
    if not messages or not used:
        return {}
    ours = sum(used.get(part, 0.0) for part in PARTS)
    result = {f"{part}_ms": round(used.get(part, 0.0) * 1000 / messages, 2) for part in PARTS}
    result["ours_ms"] = round(ours * 1000 / messages, 2)
    result["others_ms"] = round(max(0.0, used["machine"] - ours) * 1000 / messages, 2)
    result["cores_busy"] = round(used["machine"] / used["wall"], 2) if used.get("wall") else 0.0
    return result
