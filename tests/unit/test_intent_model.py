"""The classifier's learned fallback (issue 25 point 2, docs/learning.md): the numpy
runtime reads exactly what scikit-learn trained, the packaged model is the one the
corpora build, it decides only where the rules are unsure, and a retrained model is
kept only when it routes held-out examples better."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pipeline.classifier import Classifier
from pipeline.classifier.model import PACKAGED_MODEL, IntentModel
from pipeline.intents import Intent
from pipeline.learning.model_training import (
    build,
    fit,
    fitted,
    held_out,
    repository_examples,
)
from pipeline.learning.proposals import Example
from pipeline.text import normalize
from pipeline.types import ClassifierContext
from tests.shared import catalog, rulebook

CTX = ClassifierContext()
#: Messages none of the corpora hold, in the ways farmers write.
UNSEEN = (
    "скучаєш без мене?",
    "сколько азота надо под озимую пшеницу",
    "фарм ос лежить чи шо",
    "чи встигнемо посіяти до дощу цього тижня",
    "під яким акаунтом я зайшов",
    "I made a mistake, it was 2 l/ha not 3",
)


@pytest.fixture(scope="module")
def examples() -> list[Example]:
    return repository_examples()


@pytest.fixture(scope="module")
def rules_only() -> Classifier:
    return rulebook().classifier.with_model(None)


def test_the_numpy_runtime_reads_what_scikit_learn_trained(examples: list[Example]) -> None:
    vectorizer, regression = fitted(examples)
    model = fit(examples)
    expected = regression.predict_proba(vectorizer.transform(UNSEEN))
    got = np.array([model.probabilities(normalize(text)) for text in UNSEEN])
    assert model.classes == tuple(regression.classes_)
    np.testing.assert_allclose(got, expected, atol=1e-4)


def test_the_packaged_model_is_the_one_the_corpora_build(examples: list[Example]) -> None:
    """A corpus changed without `stepan model build --force` fails here."""
    packaged = IntentModel.load(PACKAGED_MODEL)
    rebuilt = fit(examples)
    assert packaged.classes == rebuilt.classes
    assert packaged.size == rebuilt.size
    for text in (*UNSEEN, *(e.text for e in examples[::25])):
        a, b = packaged.probabilities(normalize(text)), rebuilt.probabilities(normalize(text))
        assert a is not None and b is not None
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_a_saved_model_loads_back_the_same(tmp_path: Path, examples: list[Example]) -> None:
    model = fit(examples[:200])
    model.save(tmp_path / "m.npz")
    again = IntentModel.load(tmp_path / "m.npz")
    for text in UNSEEN:
        a, b = model.guess(normalize(text)), again.guess(normalize(text))
        assert a is not None and b is not None
        assert (a.intent, round(a.probability, 5)) == (b.intent, round(b.probability, 5))


def test_a_missing_or_broken_model_leaves_the_rules_alone(tmp_path: Path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a model")
    assert IntentModel.load_or_none(tmp_path / "absent.npz") is None
    assert IntentModel.load_or_none(broken) is None


def one_word_model(word: str, intent: str, weight: float = 8.0) -> IntentModel:
    """A model that knows one word and reads it as ``intent``."""
    classes = sorted({intent, "general"})
    weights = np.zeros((1, len(classes)), dtype=np.float32)
    weights[0, classes.index(intent)] = weight
    return IntentModel(
        classes,
        [f"w:{word}"],
        np.ones(1, dtype=np.float32),
        weights,
        np.zeros(len(classes), dtype=np.float32),
    )


def test_the_model_decides_what_no_rule_matched(rules_only: Classifier) -> None:
    text = "шакалака бумбум"
    assert rules_only.classify(text, CTX).reason.startswith("no_match")
    learned = rules_only.with_model(one_word_model("шакалака", "weather"))
    decision = learned.classify(text, CTX)
    assert (decision.mode, decision.intent) == ("deep", Intent.WEATHER)
    assert decision.reason.startswith("model:weather p=")


def test_a_sure_rule_is_never_overridden(rules_only: Classifier) -> None:
    text = "привіт"
    before = rules_only.classify(text, CTX)
    learned = rules_only.with_model(one_word_model("привіт", "weather", weight=50.0))
    after = learned.classify(text, CTX)
    assert (after.mode, after.intent, after.reason) == (before.mode, before.intent, before.reason)


def test_a_bare_trigger_the_model_finds_unlikely_gives_way() -> None:
    """One trigger at the minimum score inside a longer message is not sure: a model
    that reads the whole message as another intent, and the rule's own as unlikely,
    decides ("привіт" alone stays a greeting: the test above)."""
    rules_only = rulebook().classifier.with_model(None)
    text = "привіт шакалака бумбум"
    assert rules_only.classify(text, CTX).intent == Intent.GREETING
    learned = rules_only.with_model(one_word_model("шакалака", "weather", weight=50.0))
    decision = learned.classify(text, CTX)
    assert (decision.mode, decision.intent) == ("deep", Intent.WEATHER)
    assert decision.reason.startswith("model:weather p=")


def test_a_bare_trigger_is_not_renamed_within_its_route(rules_only: Classifier) -> None:
    """iot and iot_alert send a message to the same crew the same way: a trigger's
    reading is not swapped for a name that changes nothing but the reply's frame."""
    text = "покажи вологість шакалака бумбум"
    before = rules_only.classify(text, CTX)
    assert before.intent == Intent.IOT
    learned = rules_only.with_model(one_word_model("шакалака", "iot_alert", weight=50.0))
    assert learned.classify(text, CTX).intent == Intent.IOT
    other = rules_only.with_model(one_word_model("шакалака", "weather", weight=50.0))
    assert other.classify(text, CTX).intent == Intent.WEATHER


def test_an_unsure_guess_leaves_the_rules_decision(rules_only: Classifier) -> None:
    text = "шакалака бумбум"
    # Two classes, a weak weight: about 0.4 against the 0.5 the rules file asks for.
    weak = rules_only.with_model(one_word_model("шакалака", "weather", weight=-0.4))
    assert weak.classify(text, CTX).reason == rules_only.classify(text, CTX).reason


def test_the_held_out_split_is_stable_and_keeps_every_intent(examples: list[Example]) -> None:
    train, held = held_out(examples)
    _, again_held = held_out(list(reversed(examples)))
    assert sorted(e.text for e in held) == sorted(e.text for e in again_held)
    assert len(train) + len(held) == len(examples)
    assert {e.intent for e in held} >= {e.intent for e in examples if _count(examples, e) >= 5}


def _count(examples: list[Example], example: Example) -> int:
    return sum(e.intent == example.intent for e in examples)


def test_corrections_that_teach_something_new_make_a_better_model(
    rules_only: Classifier, examples: list[Example]
) -> None:
    """Farmers call their operations centre «диспетчерська»; no rule knows it."""
    taught = [
        Example(f"диспетчерська {tail}", Intent.PLATFORM)
        for tail in (
            "знову", "з самого ранку", "сьогодні теж", "вже годину", "у мене",
            "от і зараз", "після обіду", "цілий день", "як завжди", "в неділю",
        )
    ]  # fmt: skip
    result = build(rules_only, examples, taught)
    assert result.corrections == len(taught)
    assert result.after > result.before
    assert result.better
    learned = rules_only.with_model(result.model)
    decision = learned.classify("диспетчерська зранку", CTX)
    assert decision.intent == Intent.PLATFORM


def test_without_new_corrections_the_model_in_force_stays(
    rules_only: Classifier, examples: list[Example]
) -> None:
    result = build(rules_only, examples, [])
    assert result.after == result.before
    assert not result.better


def two_readings_model() -> IntentModel:
    """Reads «шакалака» as weather (p 0.46) or recording (0.34): neither sure."""
    return IntentModel(
        ["general", "recording", "weather"],
        ["w:шакалака"],
        np.ones(1, dtype=np.float32),
        np.array([[0.0, 0.5, 0.8]], dtype=np.float32),
        np.zeros(3, dtype=np.float32),
    )


def test_nothing_understood_offers_the_likeliest_readings(rules_only: Classifier) -> None:
    learned = rules_only.with_model(two_readings_model())
    decision = learned.classify("шакалака бумбум", CTX)
    assert decision.intent == Intent.CLARIFY
    assert decision.readings == (Intent.WEATHER, Intent.RECORDING)
    # On first contact the welcome comes first, and a known message needs no question.
    first = learned.classify("шакалака бумбум", ClassifierContext(interaction_count=0))
    assert first.readings == ()
    assert learned.classify("шакалака, запиши полив 20 мм на полі 3", CTX).readings == ()


def test_a_chosen_reading_routes_as_that_intent(rules_only: Classifier) -> None:
    weather = rules_only.chosen(Intent.WEATHER)
    assert (weather.mode, weather.intent, weather.reason) == (
        "deep",
        Intent.WEATHER,
        "chosen:weather",
    )
    whoami = rules_only.chosen(Intent.WHOAMI)
    assert (whoami.mode, whoami.crew_needed) == ("light", ())


def test_every_reading_has_its_button_in_both_languages() -> None:
    readings = rulebook().classifier.settings.model_readings
    assert Intent.WEATHER in readings and Intent.CLARIFY not in readings
    texts = catalog()
    for lang in ("uk", "en"):
        missing = [i for i in readings if not texts.has(lang, f"clarify.reading.{i}")]
        assert missing == [], (lang, missing)
