"""The sensor watch starts from recent readings: the farms with a reading of a known
type inside the window, each once, with their thresholds; none whose readings are
older or of an unknown type; none without a profile row to alert."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from db.models import FarmProfileRow, SensorReadingRow, UserProfileRow
from db.repositories.sensor_watch import farms_with_readings
from db.uow import Database

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
