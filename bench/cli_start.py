"""Start-up of the command-line tools: ``stepan migrate`` on a migrated database.

    python bench/cli_start.py [--repeat R] [--json]

Each command runs in a fresh interpreter (the installed ``stepan`` entry point of this
virtualenv), ``--repeat`` times, median wall time. Measured in the same run:

* ``python -c pass``: the interpreter alone (the floor);
* ``stepan migrate`` on a fresh temp SQLite file once (it creates the schema), then on
  the migrated file ``--repeat`` times (nothing to do: what a deploy pays every time);
* ``stepan stats --json`` on the same file;
* ``import bot.app``: what the bot itself imports before it can start (aiogram, the
  handlers, the pipeline), the cost the tools no longer pay.

The figures depend on bytecode being cached: ``make .venv/.installed`` compiles it
(``--compile-bytecode`` and ``compileall``); where ``PYTHONDONTWRITEBYTECODE`` is set
and nothing was compiled every start compiles all sources again (seconds).
``--json`` prints one object: seconds per command, and each divided by the bot's import.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STEPAN = Path(sys.executable).parent / "stepan"


def _timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    return time.perf_counter() - start


def _median(argv: list[str], env: dict[str, str], repeat: int) -> float:
    return statistics.median(_timed(argv, env) for _ in range(repeat))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
        env["STEPAN_DATABASE_URL"] = f"sqlite+aiosqlite:///{Path(tmp) / 'stepan.db'}"
        first = _timed([str(STEPAN), "migrate"], env)
        figures = {
            "python_pass_s": _median([sys.executable, "-c", "pass"], env, args.repeat),
            "migrate_fresh_s": first,
            "migrate_s": _median([str(STEPAN), "migrate"], env, args.repeat),
            "stats_s": _median([str(STEPAN), "stats", "--json"], env, args.repeat),
            "bot_import_s": _median([sys.executable, "-c", "import bot.app"], env, args.repeat),
        }
    bot = figures["bot_import_s"]
    result = {
        **{name: round(value, 3) for name, value in figures.items()},
        "migrate_vs_bot_import": round(figures["migrate_s"] / bot, 3),
        "stats_vs_bot_import": round(figures["stats_s"] / bot, 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:>24}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
