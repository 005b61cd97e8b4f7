"""What the hourly rollups cost the ingest: the same batches stored with and without
the rollup upsert, interleaved in one run.

    python bench/rollups.py [--batches N] [--batch-size B] [--json]

A fresh migrated temp SQLite database, a farm of 50 fields, ``--batches`` pairs of
batches of ``--batch-size`` distinct readings (100 probes, one reading a second, so
a batch touches 100-200 probe-hours), each stored by ``SensorStore.ingest`` - once
as it is (readings + rollups in one transaction) and once with
``sensor_rollups.add_readings`` replaced by a no-op (the ingest before migration
0014). Alternating the two lets load from elsewhere hit both alike. ``--json``
prints {"batch_size", "batches", "with_ms", "without_ms", "ratio"} (medians;
ratio = with / without).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from db.engine import create_engine, create_session_factory  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import FarmProfileRow, FieldRow, UserProfileRow  # noqa: E402
from db.repositories import sensor_rollups  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.farm.sensors.readings import ReadingIn, SensorTypes, parse_batch  # noqa: E402
from pipeline.farm.sensors.store import SensorStore  # noqa: E402

FARM = "farm:bench"
NOW = datetime(2026, 10, 1, tzinfo=UTC)
TYPES = SensorTypes.load()


def batch(index: int, size: int) -> list[ReadingIn]:
    items = [
        {
            "sensor_id": f"probe-{n % 100}",
            "sensor_type": "soil_moisture",
            "value": 20 + n % 30,
            "unit": "%",
            "field_id": f"field:{n % 50}",
            "measured_at": (NOW - timedelta(seconds=index * size + n)).isoformat(),
        }
        for n in range(size)
    ]
    return parse_batch(items, TYPES, now=NOW)


async def _no_rollups(*args: Any, **kwargs: Any) -> int:
    return 0


async def run(batches: int, size: int) -> dict[str, Any]:
    upsert = sensor_rollups.add_readings
    times: dict[str, list[float]] = {"with": [], "without": []}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'rollups.db'}"
        await upgrade_async(url)
        engine = create_engine(url)
        factory = create_session_factory(engine)
        try:
            async with factory() as session:
                session.add(UserProfileRow(user_id="tg:1"))
                await session.flush()
                session.add(FarmProfileRow(farm_id=FARM, user_id="tg:1"))
                await session.flush()
                session.add_all(
                    FieldRow(farm_id=FARM, field_id=f"field:{n}", name=f"Поле {n}")
                    for n in range(50)
                )
                await session.commit()
            store = SensorStore(Database(factory), TYPES)
            for index in range(batches):
                for offset, variant in enumerate(times):
                    readings = batch(2 * index + offset, size)
                    sensor_rollups.add_readings = upsert if variant == "with" else _no_rollups
                    began = time.perf_counter()
                    await store.ingest(FARM, readings, source="bench")
                    times[variant].append(time.perf_counter() - began)
        finally:
            sensor_rollups.add_readings = upsert
            await engine.dispose()
    with_ms = statistics.median(times["with"]) * 1000
    without_ms = statistics.median(times["without"]) * 1000
    return {
        "batch_size": size,
        "batches": batches,
        "with_ms": round(with_ms, 1),
        "without_ms": round(without_ms, 1),
        "ratio": round(with_ms / without_ms, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.batches, args.batch_size))
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"{result['batch_size']}-reading batches, median of {result['batches']}: "
        f"with rollups {result['with_ms']} ms, without {result['without_ms']} ms, "
        f"ratio {result['ratio']}"
    )


if __name__ == "__main__":
    main()
