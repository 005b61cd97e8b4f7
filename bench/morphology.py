"""What the dictionary morphology costs at start-up: time and resident memory.

    python bench/morphology.py [--repeat R] [--json]

Each run is a fresh interpreter that imports the bot's wiring and reads every rules
file (``Rulebook.load``, what ``stepan run`` and ``stepan chat`` do before they
answer anything), once with the shipped pipeline/rules/grammar.toml (both
dictionaries) and once with a copy whose ``morphology`` is empty (the baseline: the
stems and typo rules alone), alternating, ``--repeat`` times each. Printed: the
median wall time and peak resident memory of each, their difference and ratio.
The per-message cost is in ``bench/sets.py --timing`` (the forms are looked up as
words, so a message pays one dictionary lookup per word).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GRAMMAR = REPO / "pipeline" / "rules" / "grammar.toml"

_PROBE = """
import resource, sys
from pathlib import Path
import bot.wiring.factory  # noqa: F401  (what the bot imports anyway)
from pipeline.rulebook import Rulebook
Rulebook.load(grammar=Path(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _run(grammar: Path) -> tuple[float, float]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(grammar)],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    return wall, int(out.stdout.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = Path(tmp) / "grammar.toml"
        text = GRAMMAR.read_text(encoding="utf-8")
        baseline.write_text(re.sub(r"(?m)^morphology = .*$", "morphology = []", text))
        runs: dict[str, list[tuple[float, float]]] = {"stems": [], "dictionaries": []}
        _run(GRAMMAR)  # warm the bytecode and the page cache for both
        for _ in range(args.repeat):
            runs["stems"].append(_run(baseline))
            runs["dictionaries"].append(_run(GRAMMAR))
    result = {
        name: {
            "wall_s": statistics.median(w for w, _ in values),
            "rss_mb": statistics.median(m for _, m in values),
        }
        for name, values in runs.items()
    }
    base, morph = result["stems"], result["dictionaries"]
    result["delta"] = {
        "wall_s": morph["wall_s"] - base["wall_s"],
        "rss_mb": morph["rss_mb"] - base["rss_mb"],
        "wall_ratio": morph["wall_s"] / base["wall_s"],
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name in ("stems", "dictionaries"):
        print(f"{name:13} wall {result[name]['wall_s']:.2f} s  rss {result[name]['rss_mb']:.0f} MB")
    delta = result["delta"]
    print(
        f"dictionaries - stems: +{delta['wall_s']:.2f} s ({delta['wall_ratio']:.2f}x), "
        f"+{delta['rss_mb']:.0f} MB"
    )


if __name__ == "__main__":
    main()
