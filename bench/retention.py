"""Text retention benchmark: how long the nightly job holds SQLite's writer lock.

    python bench/retention.py [--rows N] [--expired E] [--json]

A migrated temp SQLite file gets ``--rows`` interactions over 60 days whose text was
cleared by earlier nights, the last 7 days' rows with their text, and ``--expired``
rows just past the 7 days still holding theirs (what one night clears). Copied
twice, the same rows are cleared:

* baseline, as before issue 17: the schema of then (``ix_interactions_created_at``,
  no partial index) and one ``UPDATE interactions SET text = NULL WHERE created_at <
  ? AND text IS NOT NULL`` in one transaction;
* now: ``pipeline.privacy.retention.TextRetention`` (chunks of 1,000 through
  ``ix_interactions_text_kept``, one short transaction each).

Timed: the whole run, and the longest transaction (from BEGIN to its end, SQLAlchemy
engine events), which is how long a conversation can wait for the writer.
``--json`` prints one object: rows, expired, cleared, baseline_s,
longest_transaction_s, total_s, transactions and longest_vs_baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sqlalchemy import event, insert  # noqa: E402

from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import InteractionRow  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.privacy.retention import RAW_TEXT_RETENTION, TextRetention  # noqa: E402

NOW = datetime(2026, 6, 1, 3, 30, tzinfo=UTC)
CHUNK = 20_000


def _row(n: int, at: datetime, text: str | None) -> dict[str, Any]:
    return {
        "trace_id": f"t{n}", "user_id": f"tg:{n % 5000}", "chat_id": n % 5000,
        "mode": "light", "intent": "greeting", "crew": [], "confidence": 0.9,
        "reason": "rule", "latency_ms": 12.0, "text": text, "created_at": at,
    }  # fmt: skip


async def _seed(url: str, rows: int, expired: int) -> None:
    rng = random.Random(17)
    keep = RAW_TEXT_RETENTION.total_seconds()
    engine = create_engine(url)
    db = Database.of(engine)
    try:
        batch: list[dict[str, Any]] = []
        for n in range(rows + expired):
            if n < expired:  # just past the 7 days: tonight's work
                at, text = NOW - RAW_TEXT_RETENTION - timedelta(minutes=rng.randint(1, 600)), "x"
            else:
                age = rng.uniform(0, 60 * 86_400)
                at = NOW - timedelta(seconds=age)
                text = "повідомлення фермера" if age < keep else None
            batch.append(_row(n, at, text))
            if len(batch) == CHUNK:
                async with db.write() as session:
                    await session.execute(insert(InteractionRow), batch)
                batch = []
        if batch:
            async with db.write() as session:
                await session.execute(insert(InteractionRow), batch)
    finally:
        await engine.dispose()


def _baseline(path: Path) -> tuple[float, int]:
    """The schema and the statement of before: one UPDATE, one transaction."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("DROP INDEX ix_interactions_text_kept")
        conn.execute("CREATE INDEX ix_interactions_created_at ON interactions (created_at)")
        cutoff = (NOW - RAW_TEXT_RETENTION).strftime("%Y-%m-%d %H:%M:%S.%f")
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        cleared = conn.execute(
            "UPDATE interactions SET text = NULL WHERE created_at < ? AND text IS NOT NULL",
            (cutoff,),
        ).rowcount
        conn.execute("COMMIT")
        return time.perf_counter() - started, cleared


async def _chunked(url: str) -> tuple[float, float, int, int]:
    engine = create_engine(url)
    longest = 0.0
    began = 0.0

    def on_begin(_conn: Any) -> None:
        nonlocal began
        began = time.perf_counter()

    def on_end(_conn: Any) -> None:
        nonlocal longest
        longest = max(longest, time.perf_counter() - began)

    event.listen(engine.sync_engine, "begin", on_begin)
    event.listen(engine.sync_engine, "commit", on_end)
    event.listen(engine.sync_engine, "rollback", on_end)
    try:
        started = time.perf_counter()
        result = await TextRetention(Database.of(engine), clock=lambda: NOW).run()
        total = time.perf_counter() - started
    finally:
        await engine.dispose()
    return total, longest, result.cleared, result.transactions


async def run(rows: int, expired: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "retention.db"
        url = f"sqlite+aiosqlite:///{path}"
        await upgrade_async(url)
        await _seed(url, rows, expired)
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = Path(tmp) / "before.db"
        shutil.copyfile(path, before)
        baseline_s, baseline_cleared = _baseline(before)
        total, longest, cleared, transactions = await _chunked(url)
    # Both clear the same rows, or the comparison means nothing.
    assert cleared == baseline_cleared == expired, (cleared, baseline_cleared, expired)
    return {
        "rows": rows,
        "expired": expired,
        "cleared": cleared,
        "baseline_s": round(baseline_s, 4),
        "longest_transaction_s": round(longest, 4),
        "total_s": round(total, 4),
        "transactions": transactions,
        "longest_vs_baseline": round(longest / baseline_s, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--expired", type=int, default=3_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.rows, args.expired))
    if args.json:
        print(json.dumps(result))
    else:
        for name, value in result.items():
            print(f"{name:>22}: {value}")


if __name__ == "__main__":
    main()
