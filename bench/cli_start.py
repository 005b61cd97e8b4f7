"""Start-up of the command-line tools: ``stepan migrate`` on a migrated database.

    python bench/cli_start.py [--repeat R] [--json]

Each command runs in a fresh interpreter (the installed ``stepan`` entry point of this
virtualenv), ``--repeat`` times, median wall time. Measured in the same run:

* ``python -c pass``: the interpreter alone (the floor);
* ``stepan migrate`` on a fresh temp SQLite file once (it creates the schema), then on
  the migrated file ``--repeat`` times (nothing to do: what a deploy pays every time);
* ``stepan stats --json`` on the same file;
* ``import bot.cli.run``: what the bot itself imports before it can start (aiogram, the
  handlers, the pipeline), the cost the tools no longer pay.

The figures depend on bytecode being cached: ``make .venv/.installed`` compiles it
(``--compile-bytecode`` and ``compileall``); where ``PYTHONDONTWRITEBYTECODE`` is set
and nothing was compiled every start compiles all sources again (seconds).
``--json`` prints one object: wall and CPU (user + system) seconds per command, the
tools' wall time divided by the bot's import, and the load average at the end (the
machine may be shared: CPU seconds say what a quiet machine would take).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STEPAN = Path(sys.executable).parent / "stepan"


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _median(argv: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    runs = [_timed(argv, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
        env["STEPAN_DATABASE_URL"] = f"sqlite+aiosqlite:///{Path(tmp) / 'stepan.db'}"
        commands = {
            "python_pass": [sys.executable, "-c", "pass"],
            "migrate_fresh": [str(STEPAN), "migrate"],  # first: creates the schema
            "migrate": [str(STEPAN), "migrate"],
            "stats": [str(STEPAN), "stats", "--json"],
            "bot_import": [sys.executable, "-c", "import bot.cli.run"],
        }
        figures: dict[str, float] = {}
        for name, argv in commands.items():
            wall, cpu = _median(argv, env, 1 if name == "migrate_fresh" else args.repeat)
            figures[f"{name}_s"], figures[f"{name}_cpu_s"] = wall, cpu
    bot = figures["bot_import_s"]
    result = {
        **{name: round(value, 3) for name, value in figures.items()},
        "migrate_vs_bot_import": round(figures["migrate_s"] / bot, 3),
        "stats_vs_bot_import": round(figures["stats_s"] / bot, 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:>24}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
