"""The expertise auto-upgrade rule (seed section 6, made exact in docs/memory.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pipeline.memory.habits.expertise import (
    EXPERT_MIN_INTERACTIONS,
    INTERMEDIATE_MIN_INTERACTIONS,
    TECHNICAL_INTENTS,
    WORK_INTENTS,
    earned_level,
    upgraded_level,
)
from pipeline.profiles import Expertise

SOCIAL = ["greeting", "thanks", "whoami"]


@pytest.mark.parametrize(
    ("current", "count", "intents", "expected"),
    [
        # novice -> intermediate: 10 interactions and 2 distinct work intents
        ("novice", 9, ["planning", "recording"], None),
        ("novice", 10, ["planning", "recording"], "intermediate"),
        ("novice", 10, ["planning"], None),  # one work intent is not enough
        ("novice", 50, SOCIAL, None),  # chatting a lot is not expertise
        ("novice", 10, ["planning", "planning", *SOCIAL], None),  # distinct ones count
        # intermediate -> expert: 30 interactions and 2 distinct technical intents
        ("intermediate", 29, ["iot", "analysis", "planning"], None),
        ("intermediate", 30, ["iot", "analysis", "planning"], "expert"),
        ("intermediate", 30, ["iot", "planning", "recording"], None),  # one technical
        ("intermediate", 100, ["planning", "recording", "summary"], None),
        # a novice who meets the expert rule goes straight there
        ("novice", 30, ["platform", "reporting"], "expert"),
        # never down
        ("expert", 0, [], None),
        ("intermediate", 3, [], None),
        ("expert", 100, SOCIAL, None),
        # an unknown stored value is repaired upwards
        ("guru", 0, [], "novice"),
    ],
)
def test_rule(current: str, count: int, intents: list[str], expected: Expertise | None) -> None:
    level = upgraded_level(current, interaction_count=count, known_intents=intents, locked=False)
    assert level == expected


@pytest.mark.parametrize("current", ["novice", "intermediate"])
def test_operator_lock_is_never_overridden(current: str) -> None:
    everything = sorted(WORK_INTENTS)
    assert earned_level(1000, everything) == "expert"
    assert (
        upgraded_level(current, interaction_count=1000, known_intents=everything, locked=True)
        is None
    )


def test_thresholds_are_the_seeds() -> None:
    assert (INTERMEDIATE_MIN_INTERACTIONS, EXPERT_MIN_INTERACTIONS) == (10, 30)


def test_intent_sets_follow_the_classifier_rules(repo_root: Path) -> None:
    """WORK_INTENTS are exactly the deep-path intents of the rules file, so a new deep
    intent cannot silently stop counting as work."""
    rules = tomllib.loads((repo_root / "pipeline/rules/classifier.toml").read_text("utf-8"))
    deep = {name for name, spec in rules["intents"].items() if spec.get("mode") == "deep"}
    assert deep == WORK_INTENTS
    assert TECHNICAL_INTENTS <= WORK_INTENTS
