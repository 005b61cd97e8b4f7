"""A dry-soil alert in winter (issue 30): the advice is not «сплануйте полив», which
is wrong at 2 °C in December; in summer it is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from db.models import AlertRow
from pipeline.farm.sensors.alerts import AlertWatcher
from pipeline.farm.sensors.readings import SensorTypes
from tests.shared import catalog


def _alert(started: datetime) -> AlertRow:
    return AlertRow(farm_id="farm:1", field_id="field:north", sensor_type="soil_moisture",
                    kind="below_min", value=14.0, threshold=20.0, started_at=started)  # fmt: skip


def _watcher() -> AlertWatcher:
    nothing: Any = None
    return AlertWatcher(nothing, nothing, nothing, catalog(), SensorTypes.load())


@pytest.mark.parametrize(
    ("started", "key"),
    [
        (datetime(2026, 12, 1, 9, 0, tzinfo=UTC), "alerts.action_soil_moisture_below_min_dormant"),
        (datetime(2026, 7, 1, 9, 0, tzinfo=UTC), "alerts.action_soil_moisture_below_min"),
    ],
)
def test_the_advice_follows_the_season(started: datetime, key: str) -> None:
    text = _watcher().compose(_alert(started), "Північне", "uk", "Europe/Kyiv")
    lines = text.splitlines()
    assert lines[-1] == catalog().text("uk", key)
    other = {
        "alerts.action_soil_moisture_below_min_dormant",
        "alerts.action_soil_moisture_below_min",
    } - {key}
    assert catalog().text("uk", other.pop()) not in text
