"""UserProfile / FarmProfile: the seed's JSON shapes (sections 4, 5) and validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.profiles import (
    AlertThresholds,
    FarmProfile,
    RecentTopic,
    UserProfile,
)
from pipeline.turn.stages.routing import classifier_context

# The seed's section 4 example, key for key (values are the seed's too).
SEED_USER = {
    "_version": 1,
    "_fact_key": "user_profile:agromatrix:tg:123456789",
    "user_id": "tg:123456789",
    "agent": "agromatrix",
    "name": "Іван",
    "expertise_level": "intermediate",
    "preferred_language": "uk",
    "preferred_style": "conversational",
    "last_seen": "2026-02-24T10:00:00Z",
    "interaction_count": 42,
    "known_intents": ["plan_day", "show_critical_tomorrow", "iot_status"],
    "context_notes": ["has_farmos_access", "uses_thingsboard", "prefers_short_answers"],
    "farm_profile_ref": "farm_profile:agromatrix:tg:123456789",
    "recent_topics": [
        {"intent": "plan_day", "ts": "2026-02-24T09:00:00Z"},
        {"intent": "iot_status", "ts": "2026-02-23T18:00:00Z"},
    ],
    "operator": False,
    "updated_at": "2026-02-24T10:00:00Z",
}

# Section 5's example.
SEED_FARM = {
    "_version": 1,
    "_fact_key": "farm_profile:agromatrix:tg:123456789",
    "user_id": "tg:123456789",
    "farm_name": "Ферма Калинівка",
    "field_ids": ["field:north-01", "field:south-02"],
    "crop_ids": ["crop:wheat-winter", "crop:corn-hybrid"],
    "active_integrations": ["farmos", "thingsboard"],
    "seasonal_context": {
        "current_phase": "growing",
        "active_operations": ["irrigation", "monitoring"],
        "hemisphere": "north",
        "approximate_month": 2,
    },
    "iot_sensors": {
        "has_iot_integration": True,
        "sensor_types": ["soil_moisture", "temperature"],
        "last_alert": None,
    },
    "typical_intents": ["plan_day", "iot_status", "plan_vs_fact"],
    "alert_thresholds": {
        "soil_moisture_min": 20.0,
        "temperature_min": -5.0,
        "temperature_max": 38.0,
    },
    "dict_pending_count": 0,
    "updated_at": "2026-02-24T10:00:00Z",
}


def _nested_keys(value: Any, prefix: str = "") -> set[str]:
    if not isinstance(value, dict):
        return set()
    keys = set()
    for key, inner in value.items():
        keys.add(prefix + key)
        keys |= _nested_keys(inner, f"{prefix}{key}.")
    return keys


def test_user_seed_json_has_exactly_the_seed_keys_in_order() -> None:
    exported = UserProfile.default("tg:1").to_seed_json()
    assert list(exported) == list(SEED_USER)
    assert exported["_fact_key"] == "user_profile:agromatrix:tg:1"
    assert exported["farm_profile_ref"] == "farm_profile:agromatrix:tg:1"
    # Stepan's own bookkeeping stays out of the shared shape.
    assert "expertise_locked" not in exported and "schema_version" not in exported


def test_user_seed_json_round_trips_the_seed_example() -> None:
    profile = UserProfile.from_seed_json(SEED_USER, "tg:123456789")
    assert profile.interaction_count == 42
    assert profile.recent_topics[0] == RecentTopic(
        intent="plan_day", ts=datetime(2026, 2, 24, 9, tzinfo=UTC)
    )
    assert profile.to_seed_json() == SEED_USER


#: Stepan's own farm fields the synced copy carries beyond the seed's (issue 29 point 8:
#: a restored farm keeps its timezone and region).
OWN_FARM_KEYS = {"farm_id", "timezone", "region"}


def test_farm_seed_json_has_the_seed_keys_plus_farm_id_timezone_and_region() -> None:
    farm = FarmProfile.default("tg:1")
    exported = farm.to_seed_json()
    assert set(exported) == set(SEED_FARM) | OWN_FARM_KEYS
    assert _nested_keys(exported) == _nested_keys(SEED_FARM) | OWN_FARM_KEYS
    assert exported["farm_id"] == farm.farm_id and farm.farm_id.startswith("farm:")


def test_farm_seed_json_round_trips_the_seed_example() -> None:
    seed = {**SEED_FARM, "farm_id": "farm:kalynivka"}
    farm = FarmProfile.from_seed_json(seed, "tg:123456789")  # a copy without them
    assert farm.has_iot and farm.seasonal_context.current_phase == "growing"
    assert farm.to_seed_json() == seed | {"timezone": "Europe/Kyiv", "region": None}
    assert not {"timezone", "region"} & farm.model_fields_set


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("expertise_level", "guru"),
        ("expertise_level", ""),
        ("preferred_style", "loud"),
        ("preferred_language", "de"),
        ("interaction_count", -1),
        ("name", "x" * 129),
    ],
)
def test_invalid_user_values_are_rejected(field: str, value: object) -> None:
    with pytest.raises(ValidationError, match=field):
        UserProfile(user_id="tg:1", **{field: value})
    profile = UserProfile.default("tg:1")
    with pytest.raises(ValidationError):  # assignment is validated too
        setattr(profile, field, value)


@pytest.mark.parametrize(
    "thresholds",
    [
        {"soil_moisture_min": -0.1},
        {"soil_moisture_min": 100.5},
        {"temperature_min": -61.0},
        {"temperature_max": 71.0},
        {"temperature_min": 10.0, "temperature_max": 10.0},  # equal is not "below"
        {"temperature_min": 30.0, "temperature_max": 5.0},
        {"soil_moisture_min": "wet"},
    ],
)
def test_invalid_thresholds_are_rejected(thresholds: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        AlertThresholds(**thresholds)
    with pytest.raises(ValidationError):
        FarmProfile(user_id="tg:1", alert_thresholds=thresholds)


def test_valid_thresholds_at_the_edges_are_accepted() -> None:
    edges = AlertThresholds(soil_moisture_min=0, temperature_min=-60, temperature_max=70)
    assert (edges.soil_moisture_min, edges.temperature_min) == (0, -60)
    assert AlertThresholds(temperature_min=9.9, temperature_max=10.0).temperature_max == 10.0


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("not a dict", "JSON object"),
        ([SEED_USER], "JSON object"),
        ({**SEED_USER, "user_id": "tg:mallory"}, "another user"),
        ({**SEED_USER, "_fact_key": "farm_profile:agromatrix:tg:123456789"}, "another key"),
        ({**SEED_USER, "_version": 2}, "version"),
        ({**SEED_USER, "expertise_level": "guru"}, "expertise_level"),
        ({**SEED_USER, "recent_topics": [{"intent": "x"}]}, "ts"),
    ],
)
def test_foreign_or_malformed_user_facts_are_refused(data: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        UserProfile.from_seed_json(data, "tg:123456789")


def test_farm_fact_without_farm_id_is_refused() -> None:
    with pytest.raises(ValueError, match="farm_id"):
        FarmProfile.from_seed_json(SEED_FARM, "tg:123456789")


def test_a_fact_cannot_lock_expertise() -> None:
    profile = UserProfile.from_seed_json({**SEED_USER, "expertise_locked": True}, "tg:123456789")
    assert profile.expertise_locked is False


def test_naive_datetimes_from_sqlite_are_read_as_utc() -> None:
    naive = datetime(2026, 2, 24, 10, 0)
    farm = FarmProfile(user_id="tg:1", iot_sensors={"last_alert": naive})
    assert farm.iot_sensors.last_alert == naive.replace(tzinfo=UTC)
    profile = UserProfile(user_id="tg:1", last_seen=naive)
    # Comparing with an aware "now" must work (classifier_context does exactly that).
    ctx = classifier_context(
        profile, farm, operator=False, force_deep=False, now=naive.replace(tzinfo=UTC)
    )
    assert ctx.recent_alert is True
    later = naive.replace(tzinfo=UTC) + timedelta(days=2)
    assert not classifier_context(
        profile, farm, operator=False, force_deep=False, now=later
    ).recent_alert
