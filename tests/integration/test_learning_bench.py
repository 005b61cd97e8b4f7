"""The learning loop's benchmark (``bench/learning.py``) on a small stream: its JSON
shape, and held-out accuracy that rises and never falls from one approved overlay
version to the next. Figures only, no timings."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.shared import bench_module

REPO = Path(__file__).resolve().parents[2]
KEYS = {
    "accuracy_before", "accuracy_after", "versions", "monotonic", "per_version",
    "dev_before", "dev_after", "held_out", "corrections",
}  # fmt: skip


def _bench() -> ModuleType:
    return bench_module("learning")


def test_the_small_loop_learns_and_never_gets_worse() -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "bench" / "learning.py"), "--json", "--days", "2",
         "--messages", "150"],
        check=True, capture_output=True, text=True, timeout=600, cwd=REPO,
    )  # fmt: skip
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(result) == KEYS
    per_version = result["per_version"]
    assert result["held_out"] == 60  # 40 % of 150
    assert result["versions"] == len(per_version) - 1 >= 1
    assert (result["accuracy_before"], result["accuracy_after"]) == (
        per_version[0],
        per_version[-1],
    )
    assert all(0.0 <= share <= 1.0 for share in per_version)
    # The figure's claims, checked from the per-version list rather than trusted:
    assert all(b >= a for a, b in itertools.pairwise(per_version)) and result["monotonic"] is True
    assert result["accuracy_after"] > result["accuracy_before"]
    assert result["corrections"] > 0
    assert result["dev_after"] >= result["dev_before"]  # verified proposals only


def test_the_labelled_set_is_the_journal_benchmarks_records() -> None:
    bench = _bench()
    examples = bench.labelled()
    assert len(examples) >= 200
    assert {e.intent.value for e in examples} == {"recording", "multi_ops"}
    texts = [e.text for e in examples]
    assert len(set(texts)) > 0.95 * len(texts)
