"""The alert scenarios of issue 12, each with the number of messages a farmer gets.

Before: a reading hovering at 19.6-20.4 for 6 h sent 18 alerts; two probes of one
field at 15 % and 30 % sent 24 in 4 hours; a probe that stopped reporting never
alerted; nothing said when things were back to normal."""

from __future__ import annotations

import math
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.uow import Database
from pipeline.farm.sensors.alerts import AlertWatcher
from pipeline.farm.sensors.readings import parse_batch
from pipeline.farm.sensors.store import SensorStore
from pipeline.language.catalog import Catalog
from pipeline.memory import build_memory
from tests.integration.test_alerts import NORTH, TYPES, Clock, FakeSender, add_farm, episodes

FARM = "farm:alerts"


@pytest.fixture
async def setup(
    session_factory: async_sessionmaker[AsyncSession], db: Database, catalog: Catalog
) -> tuple[AlertWatcher, FakeSender, Clock]:
    await add_farm(session_factory)
    clock, sender = Clock(), FakeSender()
    watcher = AlertWatcher(
        sender, db, build_memory(db, clock=clock).editor, catalog, TYPES, clock=clock
    )
    return watcher, sender, clock


async def reading(
    db: Database,
    clock: Clock,
    value: float,
    *,
    probe: str = "probe-1",
    field_id: str | None = NORTH,
    source: str = "api",
) -> None:
    item: dict[str, Any] = {
        "sensor_id": probe,
        "sensor_type": "soil_moisture",
        "value": value,
        "measured_at": clock.now.isoformat(),
        "field_id": field_id,
    }
    await SensorStore(db, TYPES).ingest(
        FARM, parse_batch([item], TYPES, now=clock.now), source=source
    )


async def test_hovering_at_the_threshold_is_one_alert(
    setup: tuple[AlertWatcher, FakeSender, Clock], db: Database
) -> None:
    watcher, sender, clock = setup
    # 6 hours, a reading and a run every 15 minutes (the watcher's cadence is 5: the
    # point is the crossings, each step flips the side of the threshold or nearly).
    for step in range(6 * 4):
        await reading(db, clock, round(20 + 0.4 * math.sin(step), 2))  # 19.6..20.4
        await watcher.run()
        clock.tick(15)
    assert len(sender.sent) == 1


async def test_two_probes_of_one_field_are_one_alert(
    setup: tuple[AlertWatcher, FakeSender, Clock],
    db: Database,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    """The field's worst probe decides: 15 % and 30 % is a dry field, all along."""
    watcher, sender, clock = setup
    for step in range(4 * 6):  # 4 hours, every 10 minutes; the probes take turns
        if step % 2:
            await reading(db, clock, 30.0, probe="probe-a")
        else:
            await reading(db, clock, 15.0, probe="probe-b")
        await watcher.run()
        clock.tick(10)
    assert len(sender.sent) == 1
    [episode] = await episodes(session_factory)
    assert (episode.sensor_id, episode.value) == ("probe-b", 15.0)
    # The field recovers only when its worst probe does.
    await reading(db, clock, 25.0, probe="probe-b")
    await watcher.run()
    assert len(sender.sent) == 2 and "25 %" in sender.sent[1][1]


async def test_probes_without_a_field_alert_each(
    setup: tuple[AlertWatcher, FakeSender, Clock], db: Database
) -> None:
    watcher, sender, clock = setup
    for _ in range(6):
        await reading(db, clock, 10.0, probe="loose-1", field_id=None)
        await reading(db, clock, 11.0, probe="loose-2", field_id=None)
        await watcher.run()
        clock.tick()
    assert len(sender.sent) == 2


async def test_recovery_is_one_message_after_the_margin(
    setup: tuple[AlertWatcher, FakeSender, Clock], db: Database
) -> None:
    watcher, sender, clock = setup
    # Dry, then back over 20 but within the 2-point margin, then clearly back.
    for value in (15.0, 16.0, 20.5, 21.9, 21.0, 22.5, 23.0, 24.0, 25.0):
        await reading(db, clock, value)
        await watcher.run()
        clock.tick()
    await watcher.run()
    assert len(sender.sent) == 2
    alert, recovery = (text for _, text in sender.sent)
    assert "15 %" in alert
    assert "22,5 %" in recovery and "✅" in recovery


async def test_a_silent_probe_alerts_once_and_its_return_once(
    setup: tuple[AlertWatcher, FakeSender, Clock],
    db: Database,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    watcher, sender, clock = setup
    for _ in range(12):  # two hours of readings every 10 minutes
        await reading(db, clock, 30.0)
        clock.tick(10)
    for _ in range(12 * 2):  # then silence for 12 hours; the watcher runs on
        await watcher.run()
        clock.tick(30)
    assert len(sender.sent) == 1
    text = sender.sent[0][1]
    assert "probe-1" in text and "Північне" in text and "6 год" in text
    await reading(db, clock, 30.0)
    for _ in range(3):
        await watcher.run()
        clock.tick()
    assert len(sender.sent) == 2
    assert "probe-1" in sender.sent[1][1] and "знову на зв'язку" in sender.sent[1][1]
    assert [e.kind for e in await episodes(session_factory)] == ["silent"]


async def test_csv_imports_are_not_silence(
    setup: tuple[AlertWatcher, FakeSender, Clock], db: Database
) -> None:
    """A farm that imports a CSV once a day has gaps by design."""
    watcher, sender, clock = setup
    for _ in range(12):
        await reading(db, clock, 30.0, source="csv")
        clock.tick(10)
    clock.tick(60 * 12)
    await watcher.run()
    assert sender.sent == []


async def test_a_new_probe_is_not_silent(
    setup: tuple[AlertWatcher, FakeSender, Clock], db: Database
) -> None:
    """Two readings and then nothing: not yet a probe that used to report."""
    watcher, sender, clock = setup
    await reading(db, clock, 30.0)
    clock.tick(10)
    await reading(db, clock, 30.0)
    clock.tick(60 * 12)
    await watcher.run()
    assert sender.sent == []
