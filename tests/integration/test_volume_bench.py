"""bench/volume.py with tiny sizes: it runs, and its JSON has the keys and sane values
(no timing is asserted: timings are the benchmark's to print)."""

from __future__ import annotations

import gc
import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from db.engine import create_engine
from db.uow import Database
from pipeline.memory import build_memory

REPO = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_volume", REPO / "bench" / "volume.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_tiny_run_prints_sane_json(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    argv = ["--users", "60", "--interactions", "900", "--small-users", "20"]
    try:
        assert bench.main([*argv, "--messages", "10", "--active", "15", "--json"]) == 0
    finally:
        gc.unfreeze()  # the bench freezes its heap as `stepan run` does
    result = json.loads(capsys.readouterr().out)
    assert {"p50_ratio", "p99_ratio", "max_ms_big", "job_max_wait_ms", "jobs"} <= set(result)
    for key in ("p50_ratio", "p99_ratio", "max_ms_big", "job_max_wait_ms"):
        assert math.isfinite(result[key]) and result[key] > 0, key
    # Every job `stepan run` schedules on SQLite was run (these and any added later),
    # and each had a prober.
    assert set(result["jobs"]) >= {
        "expertise_sweep", "cache_expiry", "outbox_flush", "text_retention",
        "wal_checkpoint", "sensor_watch", "nightly_quality",
        "conversation_close", "conversation_fold",
    }  # fmt: skip
    assert all(wall >= 0 for wall in result["jobs"].values())
    waits = result["job_wait_ms"]
    assert set(waits) == {*result["jobs"], "(no job)"}
    assert result["job_max_wait_ms"] == max(ms for job, ms in waits.items() if job != "(no job)")
    # Each job's longest transaction was timed (a job opens at least its slot claim).
    holds = result["job_max_transaction_ms"]
    assert set(holds) == set(result["jobs"]) and all(ms > 0 for ms in holds.values())
    assert result["default_profile_fallbacks"] == 0
    assert result["max_ms_big"] >= result["p99_ms"]["big"] >= result["p50_ms"]["big"]
    # 10 rounds, every fifth deep: 8 light messages measured on each side.
    assert result["light_messages"] == 8
    assert (result["users"], result["interactions"], result["active"]) == (60, 900, 15)
    assert result["operations"] == 120 and result["readings"] == 6 * 96


async def test_a_default_profile_fallback_is_counted(tmp_path: Path) -> None:
    """The count comes from the loader's own warning: a database that cannot be read
    (a directory where the file should be) makes one, and the bench counts it."""
    bench = _bench()
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}")
    try:
        memory = build_memory(Database.of(engine))
        with bench.Fallbacks() as fallbacks:
            loaded = await memory.profiles.load("tg:1")
        assert fallbacks.count == 1 and loaded.degraded
        await memory.profiles.load("tg:1")  # after the block: no longer counted
        assert fallbacks.count == 1
    finally:
        await engine.dispose()
