"""Quality statistics benchmark: ``collect`` (``/stats``, ``stepan stats``) and the
daily chart's ``daily`` on a large seeded interactions table.

    python bench/stats.py [--rows N] [--days D] [--period P] [--repeat R] [--json]

A fresh migrated temp SQLite database gets ``--rows`` interactions spread over
``--days`` days (light/deep mix, crews of 0-4, eval results, latencies). Timed, median
of ``--repeat`` runs: ``collect`` over the last ``--period`` days (one grouped SELECT,
a percentile read per mode and figure, the feedback / corrections / outbox counts)
and ``daily`` over 30 days. Baseline, measured in the same run on the same rows: the
naive way, loading the period's rows (mode, crew, latency, eval result) into Python
and computing the same figures there. ``--json`` prints one object: rows,
period_rows, collect_s, daily_s, baseline_s, collect_ratio (collect / baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sqlalchemy import insert, select  # noqa: E402

from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import InteractionRow  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.learning.config import LearningRules  # noqa: E402
from pipeline.learning.stats import collect, daily  # noqa: E402

NOW = datetime(2026, 6, 1, tzinfo=UTC)
CHUNK = 20_000


async def _seed(db: Database, rows: int, days: int) -> None:
    rng = random.Random(13)
    span = days * 86_400
    for start in range(0, rows, CHUNK):
        batch: list[dict[str, Any]] = []
        for n in range(start, min(rows, start + CHUNK)):
            light = rng.random() < 0.4
            batch.append(
                {
                    "trace_id": f"b{n:08d}",
                    "user_id": f"tg:{n % 500}",
                    "chat_id": n % 500,
                    "mode": "light" if light else "deep",
                    "intent": "greeting" if light else "iot",
                    "crew": []
                    if light
                    else ["iot", "ops", "platform", "sheet"][: rng.randint(0, 4)],
                    "confidence": 0.9,
                    "reason": "rule",
                    "latency_ms": rng.uniform(5, 400) if light else rng.uniform(300, 20_000),
                    "text": None,
                    "created_at": NOW - timedelta(seconds=rng.randint(0, span)),
                    "eval_warnings": 1 if rng.random() < 0.05 else 0,
                    "eval_infos": 0,
                    "eval_failed": [],
                }
            )
        async with db.write() as session:
            await session.execute(insert(InteractionRow), batch)


async def _baseline(db: Database, since: datetime) -> dict[str, Any]:
    """The same figures the naive way: every row of the period into Python."""
    async with db.read() as session:
        rows = (
            await session.execute(
                select(
                    InteractionRow.mode,
                    InteractionRow.crew,
                    InteractionRow.latency_ms,
                    InteractionRow.eval_warnings,
                ).where(InteractionRow.created_at >= since)
            )
        ).all()
    figures: dict[str, Any] = {"light_share": sum(r[0] == "light" for r in rows) / len(rows)}
    for mode in ("light", "deep"):
        ordered = sorted(r[2] for r in rows if r[0] == mode)
        for q in (0.5, 0.95):
            figures[f"{mode}_{q}"] = ordered[max(0, math.ceil(q * len(ordered)) - 1)]
    deep = [r for r in rows if r[0] == "deep"]
    figures["deep_1_2"] = sum(1 <= len(r[1]) <= 2 for r in deep) / len(deep)
    figures["eval"] = sum(r[3] == 0 for r in rows) / len(rows)
    return figures


async def _timed(make: Any, repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = await make()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


async def run(rows: int, days: int, period: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'stats.db'}"
        await upgrade_async(url)
        engine = create_engine(url)
        db = Database.of(engine)
        try:
            await _seed(db, rows, days)
            targets = LearningRules.load().targets
            since = NOW - timedelta(days=period)
            collect_s, stats = await _timed(lambda: collect(db, since, targets, now=NOW), repeat)
            kyiv = ZoneInfo("Europe/Kyiv")  # the chart's days are the farm timezone's
            daily_s, _ = await _timed(
                lambda: daily(db, NOW - timedelta(days=30), NOW, kyiv), repeat
            )
            baseline_s, naive = await _timed(lambda: _baseline(db, since), repeat)
        finally:
            await engine.dispose()
    # Same figures both ways, or the comparison means nothing.
    assert stats.light_share == round(naive["light_share"], 4)
    assert stats.p95_ms["deep"] == round(naive["deep_0.95"], 1)
    return {
        "rows": rows,
        "period_rows": stats.interactions,
        "collect_s": round(collect_s, 3),
        "daily_s": round(daily_s, 3),
        "baseline_s": round(baseline_s, 3),
        "collect_ratio": round(collect_s / baseline_s, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--period", type=int, default=30, help="days /stats covers")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.rows, args.days, args.period, args.repeat))
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"interactions: {result['rows']} ({result['period_rows']} in the {args.period}-day period)"
    )
    print(f"collect (/stats):          {result['collect_s']:.3f} s")
    print(f"daily (chart, 30 days):    {result['daily_s']:.3f} s")
    print(f"baseline (rows to Python): {result['baseline_s']:.3f} s")
    print(f"collect / baseline:        {result['collect_ratio']:.3f}")


if __name__ == "__main__":
    main()
