"""Ingest and report benchmark: sensor readings over HTTP, and a season's report.

    python bench/ingest.py [--batches N] [--batch-size B] [--big M] [--ops K]
                           [--fields F] [--repeat R] [--json]

(a) Readings per second accepted by Stepan's endpoint (``bot/http/readings.py``:
    ``ReadingsServer`` on 127.0.0.1, a fresh migrated temp SQLite database, a real
    bearer token): ``--batches`` requests of ``--batch-size`` readings, then one of
    ``--big``. Baseline, measured in the same run: a bare aiohttp endpoint that reads
    the same bodies, parses the JSON and answers 200 without validating or writing.
    Each body goes to the baseline and then to Stepan, so load from elsewhere on the
    machine hits both alike. Client and servers share this process's event loop.
(b) Seconds to build a season's .xlsx for a ``--fields``-field farm with ``--ops``
    operations (``pipeline.farm.reports.build_operations_workbook``, April..October),
    next to writing the same rows to a CSV file with the ``csv`` module (median of
    ``--repeat`` runs each).

``--json`` prints one object: readings_per_s, baseline_readings_per_s, ingest_ratio
(Stepan / baseline), report_seconds, report_baseline_seconds, report_ratio (report /
baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from sqlalchemy.dialects import sqlite  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker  # noqa: E402

from bot.config import StepanSettings  # noqa: E402
from bot.http.readings import CLIENT_MAX_SIZE, ReadingsServer  # noqa: E402
from db.engine import create_engine, create_session_factory  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import (  # noqa: E402
    CropRow,
    FarmProfileRow,
    FieldRow,
    OperationRow,
    UserProfileRow,
)
from db.uow import Database  # noqa: E402
from pipeline.farm.reports import build_operations_workbook  # noqa: E402
from pipeline.farm.sensors.readings import SensorTypes  # noqa: E402
from pipeline.farm.sensors.store import SensorStore  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.language.texts import Texts  # noqa: E402

FARM = "farm:bench"
SEASON = (date(2026, 4, 1), date(2026, 10, 31))
SENSOR_TYPES = (("soil_moisture", 10.0, 45.0), ("temperature", 2.0, 34.0))
OPS = (
    ("irrigation", "mm", None),
    ("spraying", "l/ha", "Раундап"),
    ("fertilising", "kg/ha", "Карбамід"),
    ("scouting", None, None),
    ("tillage", None, None),
)


async def _make_farm(factory: async_sessionmaker[AsyncSession], fields: int) -> list[str]:
    field_ids = [f"field:f{i:02d}" for i in range(fields)]
    async with factory() as session:
        session.add(UserProfileRow(user_id="tg:1"))
        await session.flush()
        session.add(FarmProfileRow(farm_id=FARM, user_id="tg:1"))
        await session.flush()
        for i, field_id in enumerate(field_ids):
            session.add(FieldRow(farm_id=FARM, field_id=field_id, name=f"Поле {i + 1}"))
        session.add(CropRow(farm_id=FARM, crop_id="crop:wheat", name="Пшениця"))
        await session.commit()
    return field_ids


# --- (a) ingest ----------------------------------------------------------------------


def _bodies(sizes: list[int], field_ids: list[str], rng: random.Random) -> list[bytes]:
    """Distinct readings (sensor x minute), so every one of them is stored."""
    start = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(days=20)
    bodies: list[bytes] = []
    minute = 0
    for size in sizes:
        items = []
        for _ in range(size):
            sensor = rng.randrange(len(field_ids) * 2)
            kind, low, high = SENSOR_TYPES[sensor % 2]
            items.append(
                {
                    "sensor_id": f"probe-{sensor}",
                    "sensor_type": kind,
                    "value": round(rng.uniform(low, high), 1),
                    "measured_at": (start + timedelta(minutes=minute)).isoformat(),
                    "field_id": field_ids[sensor // 2],
                }
            )
            minute += 1
        bodies.append(json.dumps({"readings": items}).encode())
    return bodies


async def _baseline_handler(request: web.Request) -> web.Response:
    payload = json.loads(await request.read())
    return web.json_response({"accepted": len(payload["readings"]), "duplicates": 0})


async def _post(http: aiohttp.ClientSession, url: str, token: str, body: bytes) -> float:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    started = time.perf_counter()
    async with http.post(url, data=body, headers=headers) as response:
        answer = await response.json()
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise RuntimeError(f"{url}: {response.status} {answer}")
    return elapsed


async def bench_ingest(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{tmp / 'ingest.db'}"
    await upgrade_async(url)
    engine = create_engine(url)
    factory = create_session_factory(engine)
    field_ids = await _make_farm(factory, args.fields)
    sensors = SensorStore(Database(factory), SensorTypes.load())
    token = await sensors.issue_token(FARM, "bench")
    sizes = [args.batch_size] * args.batches + [args.big]
    rng = random.Random(11)
    warmup = _bodies([200], field_ids, rng)[0]
    bodies = _bodies(sizes, field_ids, rng)

    stepan = ReadingsServer(StepanSettings(_env_file=None, http_port=0), sensors)  # type: ignore[call-arg]
    await stepan.start()
    bare = web.Application(client_max_size=CLIENT_MAX_SIZE)
    bare.router.add_post("/api/v1/readings", _baseline_handler)
    runner = web.AppRunner(bare, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    stepan_url = f"http://127.0.0.1:{stepan.port}/api/v1/readings"
    bare_url = f"http://127.0.0.1:{runner.addresses[0][1]}/api/v1/readings"
    stepan_s: list[float] = []
    bare_s: list[float] = []
    try:
        async with aiohttp.ClientSession() as http:
            await _post(http, bare_url, token, warmup)
            await _post(http, stepan_url, token, warmup)
            for body in bodies:
                bare_s.append(await _post(http, bare_url, token, body))
                stepan_s.append(await _post(http, stepan_url, token, body))
    finally:
        await stepan.stop()
        await runner.cleanup()
        await engine.dispose()
    total = sum(sizes)
    return {
        "readings": total,
        "readings_per_s": total / sum(stepan_s),
        "baseline_readings_per_s": total / sum(bare_s),
        "small_batch_ms_p50": statistics.median(stepan_s[:-1]) * 1000,
        "baseline_small_batch_ms_p50": statistics.median(bare_s[:-1]) * 1000,
        "big_batch_s": stepan_s[-1],
        "baseline_big_batch_s": bare_s[-1],
    }


# --- (b) report ----------------------------------------------------------------------


def _operations(ops: int, field_ids: list[str], rng: random.Random) -> list[dict[str, Any]]:
    days = (SEASON[1] - SEASON[0]).days + 1
    rows = []
    for _ in range(ops):
        op_type, unit, product = OPS[rng.randrange(len(OPS))]
        rows.append(
            {
                "farm_id": FARM,
                "op_type": op_type,
                "field_id": field_ids[rng.randrange(len(field_ids))],
                "crop_id": "crop:wheat",
                "quantity": round(rng.uniform(1, 200), 1) if unit else None,
                "unit": unit,
                "product": product,
                "op_date": SEASON[0] + timedelta(days=rng.randrange(days)),
                "status": "done" if rng.random() < 0.8 else "planned",
                "author": "tg:1",
            }
        )
    return rows


def _write_csv(path: Path, rows: list[dict[str, Any]], names: dict[str, str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ("date", "field", "crop", "operation", "quantity", "unit", "product", "status")
        )
        for row in rows:
            writer.writerow(
                (
                    row["op_date"].isoformat(),
                    names[row["field_id"]],
                    "Пшениця",
                    row["op_type"],
                    row["quantity"],
                    row["unit"],
                    row["product"],
                    row["status"],
                )
            )


async def bench_report(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{tmp / 'report.db'}"
    await upgrade_async(url)
    engine = create_engine(url)
    factory = create_session_factory(engine)
    field_ids = await _make_farm(factory, args.fields)
    rows = _operations(args.ops, field_ids, random.Random(5))
    async with engine.begin() as connection:
        for start in range(0, len(rows), 2000):
            await connection.execute(
                sqlite.insert(OperationRow.__table__), rows[start : start + 2000]
            )
    names = {field_id: f"Поле {i + 1}" for i, field_id in enumerate(field_ids)}
    catalog = Catalog.load()
    report_s: list[float] = []
    baseline_s: list[float] = []
    written = 0
    try:
        for _ in range(args.repeat):
            started = time.perf_counter()
            _write_csv(tmp / "season.csv", rows, names)
            baseline_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            report = await build_operations_workbook(
                Database(factory), FARM, *SEASON, texts=Texts(catalog, "uk")
            )
            report_s.append(time.perf_counter() - started)
            written = report.rows
    finally:
        await engine.dispose()
    if written != args.ops:
        raise RuntimeError(f"the report has {written} operations, expected {args.ops}")
    return {
        "operations": written,
        "xlsx_bytes": len(report.content),
        "report_seconds": statistics.median(report_s),
        "report_baseline_seconds": statistics.median(baseline_s),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="stepan-bench-ingest-") as tmp:
        ingest = await bench_ingest(args, Path(tmp))
        report = await bench_report(args, Path(tmp))
    summary = {
        "readings_per_s": round(ingest["readings_per_s"]),
        "baseline_readings_per_s": round(ingest["baseline_readings_per_s"]),
        "ingest_ratio": round(ingest["readings_per_s"] / ingest["baseline_readings_per_s"], 3),
        "report_seconds": round(report["report_seconds"], 3),
        "report_baseline_seconds": round(report["report_baseline_seconds"], 3),
        "report_ratio": round(report["report_seconds"] / report["report_baseline_seconds"], 2),
    }
    return {"summary": summary, "ingest": ingest, "report": report}


def _print(result: dict[str, Any], args: argparse.Namespace) -> None:
    ingest, report, summary = result["ingest"], result["report"], result["summary"]
    print(
        f"ingest: {args.batches} x {args.batch_size} + 1 x {args.big} readings "
        f"({ingest['readings']}) over HTTP into SQLite"
    )
    print(
        f"  stepan    {summary['readings_per_s']:>9,} readings/s   "
        f"{args.batch_size}-batch p50 {ingest['small_batch_ms_p50']:.0f} ms   "
        f"{args.big}-batch {ingest['big_batch_s']:.2f} s"
    )
    print(
        f"  baseline  {summary['baseline_readings_per_s']:>9,} readings/s   "
        f"{args.batch_size}-batch p50 {ingest['baseline_small_batch_ms_p50']:.0f} ms   "
        f"{args.big}-batch {ingest['baseline_big_batch_s']:.2f} s"
    )
    print(f"  ratio (stepan / baseline): {summary['ingest_ratio']}")
    print(
        f"report: {report['operations']} operations, {args.fields} fields, "
        f"{SEASON[0]}..{SEASON[1]} (median of {args.repeat})"
    )
    print(
        f"  xlsx {summary['report_seconds']:.3f} s ({report['xlsx_bytes']:,} bytes)   "
        f"csv baseline {summary['report_baseline_seconds']:.3f} s   "
        f"ratio {summary['report_ratio']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=20, help="requests of --batch-size")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--big", type=int, default=10_000, help="then one request of this size")
    parser.add_argument("--ops", type=int, default=50_000, help="operations in the season")
    parser.add_argument("--fields", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="report runs (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.batches < 1 or args.batch_size < 1 or args.big < 1:
        parser.error("--batches, --batch-size and --big must be at least 1")
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result["summary"]))
    else:
        _print(result, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
