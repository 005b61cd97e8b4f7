"""Chart benchmark: a 90-day chart on a farm with a million readings.

    python bench/charts.py [--readings N] [--days D] [--span S] [--fields F]
                           [--repeat R] [--database-url URL] [--json]

A fresh migrated database (a temp SQLite file unless ``--database-url`` names an
empty migrated one) gets ``--readings`` soil-moisture readings of ``--fields``
fields (two probes each), spread evenly over the last ``--span`` days (default: the
chart's ``--days``, so every reading is inside the chart: the worst case). They are
generated inside the database by one INSERT ... SELECT (a recursive CTE on SQLite,
generate_series on PostgreSQL), so setting up a million rows takes seconds.

Then, each in a fresh process (so peak memory is the chart's own):

* **stepan**: ``pipeline.farm.reports.charts.sensor_chart`` - buckets aggregated in SQL,
  whole hours from the hourly rollups (``sensor_hours``, built after the bulk load
  by ``sensor_rollups.rebuild``; the ingest keeps them as readings arrive);
* **baseline**: the previous way, measured in the same run - every reading loaded
  in keyset pages (``pipeline.farm.reports.keyset.sensor_readings``), averaged into the
  same buckets in Python, drawn by the same renderer.

Time is the chart call (query + render, imports excluded); memory is the process's
peak RSS (ru_maxrss, imports included: both pay the same ~100 MB for Python,
SQLAlchemy and matplotlib). ``--json`` prints one object with both and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sqlalchemy import text  # noqa: E402

from db.engine import create_engine, create_session_factory  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import FarmProfileRow, FieldRow, UserProfileRow  # noqa: E402
from db.repositories import sensor_rollups  # noqa: E402
from db.uow import Database  # noqa: E402

FARM = "farm:bench"
ZONE = "Europe/Kyiv"
#: The chart's "now": fixed, so every run draws the same picture.
NOW = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


def _insert_sql(dialect: str) -> str:
    columns = "farm_id, field_id, sensor_id, sensor_type, value, unit, measured_at, source"
    if dialect == "sqlite":
        # measured_at in SQLAlchemy's SQLite format, so range comparisons match.
        return f"""
            INSERT INTO sensor_readings ({columns})
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < :count - 1)
            SELECT :farm, 'field:' || (i % :fields + 1), 'probe-' || (i % (2 * :fields)),
                   'soil_moisture', 15 + (i % 97) / 4.0, '%',
                   strftime('%Y-%m-%d %H:%M:%S', :start + i * :step, 'unixepoch') || '.000000',
                   'bench'
            FROM n"""
    return f"""
        INSERT INTO sensor_readings ({columns})
        SELECT :farm, 'field:' || (i % :fields + 1), 'probe-' || (i % (2 * :fields)),
               'soil_moisture', 15 + (i % 97) / 4.0, '%',
               to_timestamp(:start + i * :step), 'bench'
        FROM generate_series(0, :count - 1) AS i"""


async def setup(url: str, readings: int, span_days: int, fields: int) -> tuple[float, float]:
    """Farm, fields, readings and their hourly rollups; returns the seconds the
    readings and the rollups took."""
    engine = create_engine(url)
    try:
        factory = create_session_factory(engine)
        async with factory() as session:
            session.add(UserProfileRow(user_id="tg:1"))
            await session.flush()
            session.add(FarmProfileRow(farm_id=FARM, user_id="tg:1", timezone=ZONE))
            await session.flush()
            session.add_all(
                FieldRow(farm_id=FARM, field_id=f"field:{n}", name=f"Поле {n}")
                for n in range(1, fields + 1)
            )
            await session.commit()
        span = span_days * 86_400
        start = int((NOW - timedelta(days=span_days)).timestamp())
        began = time.perf_counter()
        async with engine.begin() as connection:
            await connection.execute(
                text(_insert_sql(engine.dialect.name)),
                {
                    "farm": FARM,
                    "fields": fields,
                    "count": readings,
                    "start": start,
                    "step": max(1, span // readings),
                },
            )
        loaded = time.perf_counter() - began
        # A bulk load bypasses the ingest, so its hourly rollups are built here.
        began = time.perf_counter()
        async with factory() as session:
            await sensor_rollups.rebuild(session, FARM)
            await session.commit()
        rolled = time.perf_counter() - began
        if engine.dialect.name == "sqlite":
            async with engine.connect() as connection:
                await connection.execute(text("ANALYZE"))
        return loaded, rolled
    finally:
        await engine.dispose()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _stepan(db: Database, days: int, prepared: tuple[Any, Any, Any]) -> int:
    from pipeline.farm.reports.chart_window import window_of
    from pipeline.farm.reports.charts import sensor_chart
    from pipeline.language.texts import Texts

    catalog, kind, tz = prepared
    window = window_of(None, days=days, now=NOW, zone=tz)
    chart = await sensor_chart(db, FARM, kind, window, zone=tz, texts=Texts(catalog, "uk"))
    assert chart is not None
    return chart.readings


async def _stepan_query(db: Database, days: int, prepared: tuple[Any, Any, Any]) -> float:
    """The chart's database part alone (its buckets, as ``sensor_chart`` reads them),
    timed after the chart: what grows with the readings, unlike the drawing."""
    from db.repositories import reporting
    from pipeline.farm.reports.chart_window import window_of
    from pipeline.farm.reports.charts import load_series

    _, kind, tz = prepared
    window = window_of(None, days=days, now=NOW, zone=tz)
    began = time.perf_counter()
    async with db.read() as session:
        lines = len(await reporting.fields(session, FARM)) + 1  # as sensor_chart counts
    await load_series(db, FARM, kind, window, zone=tz, lines=lines)
    return time.perf_counter() - began


async def _baseline(db: Database, days: int) -> int:
    """The previous chart: every reading into Python, averaged per bucket there."""
    from pipeline.farm.localtime import zone
    from pipeline.farm.reports import charts
    from pipeline.farm.reports import keyset as paging
    from pipeline.farm.reports.chart_style import line_styles
    from pipeline.farm.reports.chart_window import window_of
    from pipeline.farm.sensors.series import Point, Series, bucket_width

    tz = zone(ZONE)
    window = window_of(None, days=days, now=NOW, zone=tz)
    readings = await paging.sensor_readings(
        db, FARM, "soil_moisture", since=window.since, until=window.until
    )
    width = bucket_width(window.until - window.since, charts.MAX_POINTS_PER_LINE)
    buckets: dict[str | None, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for reading in readings:
        buckets[reading.field_id][int(reading.measured_at.timestamp()) // width].append(
            reading.value
        )
    series = [
        Series(
            field_id,
            None,
            width,
            [
                Point(
                    datetime(1970, 1, 1) + timedelta(seconds=key * width),
                    len(values),
                    min(values),
                    max(values),
                    sum(values),
                )
                for key, values in sorted(by_key.items())
            ],
        )
        for field_id, by_key in buckets.items()
    ]
    styles = line_styles(len(series))
    lines = [
        charts._Line(str(item.field_id), item, colour, dash)
        for item, (colour, dash) in zip(series, styles, strict=True)
    ]
    spec = charts._ChartSpec("baseline", "time", "value", lines, [], False)
    await asyncio.to_thread(charts._render, spec)
    return len(readings)


async def _measure(url: str, variant: str, days: int) -> dict[str, Any]:
    # Everything a chart needs is imported before the clock and the memory mark.
    import matplotlib.figure  # noqa: F401

    import pipeline.farm.reports.charts  # noqa: F401
    from pipeline.farm.localtime import zone
    from pipeline.farm.sensors.readings import SensorTypes
    from pipeline.language.catalog import Catalog

    prepared = (Catalog.load(), SensorTypes.load().types["soil_moisture"], zone(ZONE))
    engine = create_engine(url)
    try:
        db = Database.of(engine)
        before = _peak_mb()
        began = time.perf_counter()
        if variant == "stepan":
            readings = await _stepan(db, days, prepared)
        else:
            readings = await _baseline(db, days)
        seconds = time.perf_counter() - began
        query = await _stepan_query(db, days, prepared) if variant == "stepan" else None
        return {
            "seconds": round(seconds, 3),
            "query_seconds": round(query, 3) if query is not None else None,
            "peak_mb": round(_peak_mb(), 1),
            "peak_before_mb": round(before, 1),
            "readings": readings,
        }
    finally:
        await engine.dispose()


def _child(url: str, variant: str, days: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", variant, "--database-url", url, "--days", str(days)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readings", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--span", type=int, default=None, help="days the readings cover")
    parser.add_argument("--fields", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=["stepan", "baseline"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_measure(args.database_url, args.child, args.days))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        if args.database_url is None:
            asyncio.run(upgrade_async(url))
        span = args.span or args.days
        setup_s, rollup_s = asyncio.run(setup(url, args.readings, span, args.fields))
        runs: dict[str, list[dict[str, Any]]] = {"stepan": [], "baseline": []}
        for _ in range(args.repeat):  # interleaved: load from elsewhere hits both alike
            for variant in runs:
                runs[variant].append(_child(url, variant, args.days))
    result: dict[str, Any] = {"readings": args.readings, "days": args.days, "span_days": span}
    result["fields"] = args.fields
    result["setup_seconds"] = round(setup_s, 1)
    result["rollup_seconds"] = round(rollup_s, 1)
    for variant, found in runs.items():
        result[f"{variant}_seconds"] = statistics.median(r["seconds"] for r in found)
        result[f"{variant}_peak_mb"] = statistics.median(r["peak_mb"] for r in found)
        result[f"{variant}_imports_mb"] = statistics.median(r["peak_before_mb"] for r in found)
        result[f"{variant}_readings"] = found[0]["readings"]
    result["stepan_query_seconds"] = statistics.median(r["query_seconds"] for r in runs["stepan"])
    result["time_ratio"] = round(result["stepan_seconds"] / result["baseline_seconds"], 3)
    result["memory_ratio"] = round(result["stepan_peak_mb"] / result["baseline_peak_mb"], 3)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{args.readings:,} readings over {span} days, {args.fields} fields; "
        f"a {args.days}-day chart; setup {result['setup_seconds']} s "
        f"+ rollups {result['rollup_seconds']} s; "
        f"median of {args.repeat} runs, each in a fresh process"
    )
    print(f"{'variant':<10} {'seconds':>8} {'peak MB':>8} {'imports MB':>11} {'readings':>10}")
    for variant in runs:
        print(
            f"{variant:<10} {result[f'{variant}_seconds']:>8.3f} "
            f"{result[f'{variant}_peak_mb']:>8.1f} {result[f'{variant}_imports_mb']:>11.1f} "
            f"{result[f'{variant}_readings']:>10,}"
        )
    print(f"stepan / baseline: time x{result['time_ratio']}, memory x{result['memory_ratio']}")
    print(f"stepan's database part alone: {result['stepan_query_seconds']:.3f} s")


if __name__ == "__main__":
    main()
