"""Weather benchmark (issue 27): the hourly refresh for many farms, and a chat's read.

    python bench/weather.py [--farms N] [--asks A] [--json]

A fresh migrated SQLite file gets ``--farms`` active farms (their farmer seen
yesterday) at seeded random points over Ukraine, a third of them with a field of
its own point, and a tenth without a point but with an oblast (its centre is
fetched). The fake Open-Meteo (tests/fakes/open_meteo.py, real HTTP on a local
port, the documented answer) serves the forecasts.

* **refresh**: ``Forecasts.refresh()`` once from an empty cache (every cell due),
  then again (nothing due: the 45-minute freshness); its time, the cells, the
  requests (50 cells each) and the rows written.
* **ask**: ``WeatherDesk.reply`` for «яка погода завтра» of ``--asks`` farms drawn
  at random: the farm's place, the question read, the hours from the cache (one
  read), the reply composed; p50 / p95 / max in ms.

Times are wall-clock on this machine, with the fake in the same process and event
loop (its answers cost the refresh its share of CPU too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
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

import httpx  # noqa: E402
from sqlalchemy import func, insert, select  # noqa: E402
from timezonefinder import TimezoneFinder  # noqa: E402

from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import FarmProfileRow, FieldRow, UserProfileRow, WeatherHourRow  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.language.texts import Texts  # noqa: E402
from pipeline.memory import build_memory  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.weather.answers import WeatherDesk  # noqa: E402
from pipeline.weather.client import OpenMeteo  # noqa: E402
from pipeline.weather.geo import Locator  # noqa: E402
from pipeline.weather.places import FarmPlaces  # noqa: E402
from pipeline.weather.service import Forecasts  # noqa: E402
from tests.fakes.open_meteo import FakeOpenMeteo  # noqa: E402

NOW = datetime(2026, 5, 14, 9, 30, tzinfo=UTC)
#: Ukraine's arable box, roughly (the points only need to be spread like farms).
LAT, LON = (46.0, 51.5), (23.5, 39.5)


async def _seed(db: Database, farms: int, regions: list[str]) -> None:
    rng = random.Random(27)
    users, profiles, fields = [], [], []
    for n in range(farms):
        user, farm = f"tg:{100000 + n}", f"farm:bench-{n}"
        users.append({"user_id": user, "last_seen": NOW - timedelta(days=1), "active": True})
        pointless = n % 10 == 0
        lat, lon = rng.uniform(*LAT), rng.uniform(*LON)
        profiles.append(
            {
                "farm_id": farm,
                "user_id": user,
                "latitude": None if pointless else lat,
                "longitude": None if pointless else lon,
                "region": rng.choice(regions) if pointless else None,
            }
        )
        if n % 3 == 0:
            fields.append(
                {"farm_id": farm, "field_id": "field:a", "name": "Поле 1",
                 "latitude": lat + 0.07, "longitude": lon + 0.07}
            )  # fmt: skip
    async with db.write() as session:
        await session.execute(insert(UserProfileRow), users)
        await session.execute(insert(FarmProfileRow), profiles)
        await session.execute(insert(FieldRow), fields)


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered) * 1000, 2),
        "p95": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 2),
        "max": round(ordered[-1] * 1000, 2),
    }


async def run(farms: int, asks: int) -> dict[str, Any]:
    rules = Rulebook.load()
    catalog = Catalog.load()
    regions = [r for r, region in rules.knowledge.data.regions.items() if region.by_point]
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        await upgrade_async(url)
        engine = create_engine(url)
        db = Database.of(engine)
        try:
            await _seed(db, farms, regions)
            locator = Locator(TimezoneFinder(), rules.knowledge.data.regions)
            async with FakeOpenMeteo(now=NOW) as fake, httpx.AsyncClient() as http:
                forecasts = Forecasts(
                    db, OpenMeteo(http, fake.base_url), locator, clock=lambda: NOW
                )
                started = time.perf_counter()
                first = await forecasts.refresh()
                refresh_s = time.perf_counter() - started
                started = time.perf_counter()
                second = await forecasts.refresh()
                again_s = time.perf_counter() - started
                async with db.read() as session:
                    rows = await session.scalar(select(func.count()).select_from(WeatherHourRow))
                memory = build_memory(db)
                desk = WeatherDesk(
                    forecasts, FarmPlaces(db, locator, memory.editor), rules.weather,
                    rules.knowledge.data.regions,
                )  # fmt: skip
                texts = Texts(catalog, "uk")
                rng = random.Random(5)
                times = []
                for _ in range(asks):
                    user = f"tg:{100000 + rng.randrange(farms)}"
                    started = time.perf_counter()
                    reply = await desk.reply(user, "яка погода завтра", texts, NOW, "Europe/Kyiv")
                    times.append(time.perf_counter() - started)
                    assert reply.text.startswith("🌦"), reply.text
        finally:
            await engine.dispose()
    return {
        "farms": farms,
        "refresh": {
            "cells": first.cells,
            "requests": first.requests,
            "fetched": first.fetched,
            "failed": first.failed,
            "rows": rows,
            "seconds": round(refresh_s, 2),
        },
        "refresh_again": {"requests": second.requests, "seconds": round(again_s, 3)},
        "ask_ms": _ms(times),
        "asks": asks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--farms", type=int, default=1000)
    parser.add_argument("--asks", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.farms, args.asks))
    if args.json:
        print(json.dumps(result))
        return
    refresh = result["refresh"]
    print(f"{result['farms']} farms: {refresh['cells']} cells in {refresh['requests']} requests, "
          f"{refresh['rows']} hour rows, {refresh['seconds']} s "
          f"(again: {result['refresh_again']['requests']} requests, "
          f"{result['refresh_again']['seconds']} s)")  # fmt: skip
    ask = result["ask_ms"]
    print(f"«яка погода завтра» x{result['asks']}: p50 {ask['p50']} ms, p95 {ask['p95']} ms, "
          f"max {ask['max']} ms")  # fmt: skip


if __name__ == "__main__":
    main()
