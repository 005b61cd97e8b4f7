"""The pure learning rules (pipeline/memory/habits/observed.py) and their rules file."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from pipeline.memory.habits.observed import IntentCount, JournalOp, season, typical_intents
from pipeline.memory.habits.rules import LearningRules

RULES = LearningRules.load()
T = datetime(2026, 5, 12, tzinfo=UTC)
TODAY = date(2026, 5, 12)


def _count(intent: str, count: int, minutes_ago: int = 0) -> IntentCount:
    return IntentCount(intent, count, T - timedelta(minutes=minutes_ago))


def test_typical_intents_most_frequent_first_then_most_recent() -> None:
    counts = [
        _count("planning", 4, minutes_ago=50),
        _count("recording", 9),
        _count("iot", 4, minutes_ago=5),
        _count("analysis", 3),
        _count("greeting", 40),
        _count("summary", 2),
    ]
    # keep = 3; greeting is social; summary is under min_count (3).
    assert typical_intents(counts, RULES.typical_intents) == ["recording", "iot", "planning"]


def test_no_work_no_typical_intents() -> None:
    assert typical_intents([_count("thanks", 12), _count("", 5)], RULES.typical_intents) == []


def _op(kind: str, days_ago: int, status: str = "done") -> JournalOp:
    return JournalOp(kind, TODAY - timedelta(days=days_ago), status)


def test_the_newest_done_operation_names_the_phase() -> None:
    seen = season(TODAY, [_op("sowing", 9), _op("spraying", 2), _op("sowing", 8)], RULES.season)
    assert seen.approximate_month == 5
    assert seen.phase == "growing"
    assert seen.active_operations == ["sowing", "spraying"]  # most frequent first


def test_old_operations_leave_the_window_and_plans_mean_planning() -> None:
    ops = [_op("harvest", 20), _op("sowing", -3, "planned"), _op("tillage", -30, "planned")]
    seen = season(TODAY, ops, RULES.season)
    assert seen.phase == "planning"
    assert seen.active_operations == ["sowing"]  # the tillage is too far ahead


def test_an_empty_journal_keeps_the_phase_and_follows_the_calendar() -> None:
    seen = season(date(2026, 11, 2), [], RULES.season)
    assert (seen.approximate_month, seen.phase, seen.active_operations) == (11, None, [])


def test_one_day_of_several_kinds_takes_the_phase_most_of_them_mean() -> None:
    ops = [_op("harvest", 1), _op("mowing", 1), _op("tillage", 1)]
    assert season(TODAY, ops, RULES.season).phase == "harvest"


def test_the_rules_file_is_checked() -> None:
    raw = RULES.model_dump(mode="json")
    raw["season"]["phase_of_operation"]["sowing"] = "sowingg"
    with pytest.raises(ValueError, match="phase_of_operation"):
        LearningRules.from_mapping(raw)
    raw = RULES.model_dump(mode="json")
    raw["typical_intents"]["ignore"] = ["greetings"]
    with pytest.raises(ValueError, match="ignore"):
        LearningRules.from_mapping(raw)


def test_a_source_means_an_integration() -> None:
    integrations = RULES.integrations
    assert integrations.of_source("api") == "sensors"
    assert integrations.of_source("csv") == "csv"
    assert integrations.of_source("something-new") == integrations.default
    assert {"sensors", "csv", "thingsboard"} <= integrations.sensor_integrations
