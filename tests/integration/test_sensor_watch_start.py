"""The sensor watch starts from recent readings: the farms with a reading of a known
type inside the window, each once, with their thresholds; none whose readings are
older or of an unknown type; none without a profile row to alert. The watcher reads
its lookback a slice per transaction, and misses no farm on a slice's edge."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from db.models import FarmProfileRow, SensorReadingRow, UserProfileRow
from db.repositories.sensor_watch import farms_with_readings
from db.uow import Database
from pipeline.farm.sensors.alerts import FARMS_SLICE, MAX_READING_AGE, AlertWatcher
from pipeline.farm.sensors.readings import SensorTypes
from pipeline.language.catalog import Catalog
from pipeline.memory import build_memory

NOW = datetime(2026, 7, 1, 6, 0, tzinfo=UTC)
SINCE = NOW - timedelta(hours=24)


def _reading(farm: str, probe: str, kind: str, at: datetime) -> SensorReadingRow:
    return SensorReadingRow(
        farm_id=farm, field_id=None, sensor_id=probe, sensor_type=kind, value=20.0,
        unit="%", measured_at=at, source="api",
    )  # fmt: skip


async def test_only_farms_with_known_readings_inside_the_window(db: Database) -> None:
    async with db.write() as session:
        session.add_all([UserProfileRow(user_id=f"tg:{n}") for n in range(5)])
        await session.flush()
        for n in range(5):
            session.add(
                FarmProfileRow(
                    farm_id=f"farm:{n}", user_id=f"tg:{n}",
                    alert_thresholds={"soil_moisture_min": 10 + n},
                )
            )  # fmt: skip
        await session.flush()
        session.add_all(
            [
                # farm:0 - several recent readings of two probes: listed once.
                *(
                    _reading("farm:0", f"p{k}", "soil_moisture", NOW - timedelta(minutes=k))
                    for k in range(4)
                ),
                # farm:1 - only older than the window.
                _reading("farm:1", "p", "soil_moisture", SINCE - timedelta(seconds=1)),
                # farm:2 - recent, but a type nobody watches.
                _reading("farm:2", "p", "radiation", NOW - timedelta(minutes=1)),
                # farm:3 - exactly at the start of the window, and an old one.
                _reading("farm:3", "p", "temperature", SINCE),
                _reading("farm:3", "p", "temperature", SINCE - timedelta(days=3)),
                # farm:4 - nothing at all.
            ]
        )
    async with db.read() as session:
        farms = await farms_with_readings(session, ["soil_moisture", "temperature"], since=SINCE)
    assert [(f.farm_id, f.user_id, f.alert_thresholds) for f in farms] == [
        ("farm:0", "tg:0", {"soil_moisture_min": 10}),
        ("farm:3", "tg:3", {"soil_moisture_min": 13}),
    ]


async def test_until_bounds_the_window_half_open(db: Database) -> None:
    async with db.write() as session:
        session.add_all([UserProfileRow(user_id=f"tg:{n}") for n in range(2)])
        await session.flush()
        session.add_all([FarmProfileRow(farm_id=f"farm:{n}", user_id=f"tg:{n}") for n in range(2)])
        await session.flush()
        session.add_all(
            [
                _reading("farm:0", "p", "soil_moisture", SINCE),
                _reading("farm:1", "p", "soil_moisture", NOW),  # at ``until``: the next slice's
            ]
        )
    async with db.read() as session:
        farms = await farms_with_readings(session, ["soil_moisture"], since=SINCE, until=NOW)
    assert [f.farm_id for f in farms] == ["farm:0"]


class _Silent:
    async def send(self, chat_id: int, text: str) -> None:
        raise AssertionError("nothing to alert")


async def test_the_watcher_reads_its_lookback_slice_by_slice_and_misses_no_farm(
    db: Database, catalog: Catalog
) -> None:
    """Readings across the week, on slice edges and a little ahead of the clock: every
    farm is watched once, and the lookback is read in many short transactions."""
    watcher = AlertWatcher(
        _Silent(), db, build_memory(db).editor, catalog, SensorTypes.load(), clock=lambda: NOW
    )
    lookback = max(MAX_READING_AGE, watcher._policy.silent_lookback)
    ages = [lookback, lookback - FARMS_SLICE, timedelta(hours=30), FARMS_SLICE, timedelta(0)]
    async with db.write() as session:
        session.add_all([UserProfileRow(user_id=f"tg:{n}") for n in range(len(ages) + 2)])
        await session.flush()
        session.add_all(
            [FarmProfileRow(farm_id=f"farm:{n}", user_id=f"tg:{n}") for n in range(len(ages) + 2)]
        )
        await session.flush()
        session.add_all(
            [_reading(f"farm:{n}", "p", "soil_moisture", NOW - age) for n, age in enumerate(ages)]
            + [
                _reading(f"farm:{len(ages)}", "p", "soil_moisture", NOW + timedelta(minutes=2)),
                _reading(f"farm:{len(ages) + 1}", "p", "soil_moisture", NOW - lookback * 2),
            ]
        )
    reads = 0
    read = db.read

    def counted() -> Any:
        nonlocal reads
        reads += 1
        return read()

    db.read = counted  # type: ignore[method-assign]
    farms = await watcher._farms(NOW)
    assert [f.farm_id for f in farms] == [f"farm:{n}" for n in range(len(ages) + 1)]
    assert reads == lookback // FARMS_SLICE + 1  # the slices, then the profiles
