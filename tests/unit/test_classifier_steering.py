"""The farm's typical intents steer the routing (classifier.toml [steering], seed
section 5: typical_intents are "used for the light/deep distinction")."""

from __future__ import annotations

import pytest

from pipeline.classifier import Classifier
from pipeline.types import ClassifierContext


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    return Classifier.from_file()


def _ctx(*typical: str) -> ClassifierContext:
    return ClassifierContext(interaction_count=20, typical_intents=typical)


def test_an_unmatched_long_message_takes_the_typical_crews(classifier: Classifier) -> None:
    text = "ну то що там з тим усім нашим господарством"
    plain = classifier.classify(text, _ctx())
    steered = classifier.classify(text, _ctx("recording", "iot"))
    assert (plain.mode, plain.intent, plain.crew_needed) == ("deep", "general", ())
    assert (steered.mode, steered.intent) == ("deep", "general")
    assert steered.crew_needed == ("iot", "ops")
    assert "typical:recording,iot" in steered.reason


def test_light_typical_intents_and_unknown_names_add_no_crew(classifier: Classifier) -> None:
    text = "ну то що там з тим усім нашим господарством"
    steered = classifier.classify(text, _ctx("greeting", "renamed_intent"))
    assert steered.crew_needed == ()
    assert "typical" not in steered.reason


def test_a_tie_inside_a_tier_goes_to_the_typical_intent(classifier: Classifier) -> None:
    # "порівняй" (analysis) and "зведення" (summary) score the same in one tier.
    text = "порівняй зведення"
    assert classifier.classify(text, _ctx()).intent == "analysis"
    assert classifier.classify(text, _ctx("summary")).intent == "summary"
    assert classifier.classify(text, _ctx("recording")).intent == "analysis"


def test_a_better_score_still_wins_over_habit(classifier: Classifier) -> None:
    assert classifier.classify("зведення по полях", _ctx("analysis")).intent == "summary"


def test_a_typical_intent_is_less_in_doubt(classifier: Classifier) -> None:
    bonus = classifier.settings.typical_confidence_bonus
    assert bonus > 0
    plain = classifier.classify("статистика по полю", _ctx())
    steered = classifier.classify("статистика по полю", _ctx("analysis"))
    assert steered.confidence == pytest.approx(plain.confidence + bonus)


def test_the_steering_table_is_optional_and_checked() -> None:
    import tomllib

    from pipeline.classifier.rules import DEFAULT_RULES

    raw = tomllib.loads(DEFAULT_RULES.read_text(encoding="utf-8"))
    del raw["steering"]
    bare = Classifier.from_mapping(raw)
    text = "ну то що там з тим усім нашим господарством"
    assert bare.classify(text, _ctx("recording")).crew_needed == ()
    raw["steering"] = {"typical_confidence_bonus": 2.0}
    with pytest.raises(ValueError, match="typical_confidence_bonus"):
        Classifier.from_mapping(raw)
