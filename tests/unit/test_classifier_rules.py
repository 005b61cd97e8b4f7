"""The classifier's rules file is checked when it loads: crews and intents must be
the ones the code knows, every enum intent has its rules, and no keyword lives in
the Python code (the word rules are data: pipeline/rules/classifier.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pipeline.classifier import DEFAULT_RULES, Classifier
from pipeline.intents import RULE_INTENTS, Intent
from pipeline.types import CREW_NAMES

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def clf() -> Classifier:
    """The word rules alone, as test_classifier.py loads them."""
    return Classifier.from_file()


def test_invalid_rules_are_rejected_at_load_time() -> None:
    raw = tomllib.loads(DEFAULT_RULES.read_text("utf-8"))
    raw["intents"]["recording"]["crew"] = ["tractor"]
    with pytest.raises(ValueError, match="unknown crew"):
        Classifier.from_mapping(raw)


def test_an_intent_the_enum_does_not_know_is_rejected_at_load_time() -> None:
    raw = tomllib.loads(DEFAULT_RULES.read_text("utf-8"))
    raw["intents"]["recordings"] = raw["intents"].pop("recording")
    with pytest.raises(ValueError, match="unknown intent 'recordings'"):
        Classifier.from_mapping(raw)


def test_an_enum_intent_missing_from_the_rules_is_rejected_at_load_time() -> None:
    raw = tomllib.loads(DEFAULT_RULES.read_text("utf-8"))
    del raw["intents"]["summary"]
    raw["settings"]["deep_priority"] = [
        tier for tier in raw["settings"]["deep_priority"] if tier != ["analysis", "summary"]
    ] + ["analysis"]
    with pytest.raises(ValueError, match=r"intents missing from the rules .*'summary'"):
        Classifier.from_mapping(raw)


def test_the_rules_define_exactly_the_enum_intents(clf: Classifier) -> None:
    assert set(clf.intents) == RULE_INTENTS
    assert all(isinstance(name, Intent) for name in clf.intents)


def test_every_intent_has_a_known_crew_and_mode(clf: Classifier) -> None:
    assert clf.intents
    for spec in clf.intents.values():
        assert spec.mode in ("light", "deep")
        assert set(spec.crew) <= set(CREW_NAMES)
        if spec.mode == "light":
            assert spec.crew == ()


def test_no_keywords_live_in_the_python_code() -> None:
    sources = sorted((REPO / "pipeline/classifier").glob("*.py"))
    assert sources
    for path in sources:
        source = path.read_text("utf-8")
        assert not any("\u0400" <= ch <= "\u04ff" for ch in source), path
