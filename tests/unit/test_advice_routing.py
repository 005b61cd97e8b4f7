"""The classifier sends agronomy questions to the knowledge base (the ``advice``
intent, scored by the knowledge base's own question reader) and leaves sensor
questions, records and plans where they were."""

from __future__ import annotations

import pytest

from pipeline.agronomy import wants_advice
from pipeline.intents import Intent
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext


@pytest.mark.parametrize(
    "text",
    [
        "коли краще сіяти озиму пшеницю на Полтавщині?",
        "яка норма висіву соняшнику?",
        "норма висіву кукурудзи?",
        "скільки води треба кукурудзі?",
        "what is the seeding rate for sunflower?",
        "сколько сеять подсолнечника",
        "при якій температурі ґрунту сіяти кукурудзу",
        "стебловий метелик на кукурудзі поріг",
        "при якому вітрі можна обприскувати?",
        "when to harvest corn moisture",
        "порадь, коли сіяти соняшник",
    ],
)
def test_agronomy_questions_go_to_the_knowledge(rules: Rulebook, text: str) -> None:
    decision = rules.classifier.classify(text, ClassifierContext())
    assert decision.mode == "deep"
    assert wants_advice(decision), decision


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("яка температура ґрунту на полі 3", Intent.IOT),
        ("температура ґрунту", Intent.IOT),
        ("запиши посів кукурудзи на полі 3, норма висіву 70 тис", Intent.RECORDING),
        ("на 6 полі закінчили збирати ячмінь, вийшло 48 ц/га", Intent.RECORDING),
        ("make a spraying schedule for next week", Intent.PLANNING),
        ("зроби звіт в excel за жовтень", Intent.REPORTING),
        ("привіт", Intent.GREETING),
    ],
)
def test_other_requests_keep_their_intent(rules: Rulebook, text: str, intent: Intent) -> None:
    decision = rules.classifier.classify(text, ClassifierContext(grows_crops=True))
    assert decision.intent == intent
    assert not wants_advice(decision)


def test_a_topic_alone_needs_the_context(rules: Rulebook) -> None:
    # "норма висіву" names no crop: to the rules, on its own it is too short to act
    # on; on a farm that grows crops, or right after an agronomy question, it is about
    # those. (The learned fallback may still read it as a decision, and the advisor
    # then asks which crop: the rules' half score is what is checked here.)
    alone = rules.classifier.with_model(None).classify("норма висіву", ClassifierContext())
    assert not wants_advice(alone)
    for ctx in (ClassifierContext(grows_crops=True), ClassifierContext(recent_advice=True)):
        decision = rules.classifier.classify("норма висіву", ctx)
        assert wants_advice(decision)
        assert decision.matched_intents[0] == Intent.ADVICE


@pytest.mark.parametrize(
    "text", ["how deep to sow sunflower", "норма висіву кукурудзи?", "вологість сої при збиранні"]
)
def test_an_agronomy_question_is_routed_as_a_decision(rules: Rulebook, text: str) -> None:
    # LABELS.md knows no "advice": an agronomy question is a decision, which the
    # pipeline hands to the advisor because advice is the primary match.
    decision = rules.classifier.classify(text, ClassifierContext())
    assert (decision.mode, decision.intent, decision.crew_needed) == ("deep", "decision", ())
    assert decision.matched_intents[0] == Intent.ADVICE
    assert wants_advice(decision)


def test_the_probe_is_the_knowledge_reader(rules: Rulebook) -> None:
    kb = rules.knowledge
    assert kb.claim("норма висіву соняшнику") == 2  # topic + crop
    assert kb.claim("умови обприскування") == 2  # a general topic needs no crop
    assert kb.claim("а на яку глибину?") == 1  # a topic alone
    assert kb.claim("привіт, як справи") == 0


@pytest.mark.parametrize(
    "text",
    [
        "при якій вологості збирати сою",
        "стебловий метелик на кукурудзі поріг",
        "температура ґрунту для сої",
        "soybean storage moisture",
    ],
)
def test_a_crops_norm_is_no_sensor_reading(rules: Rulebook, text: str) -> None:
    # A quantity ("вологість", "поріг") in a sure agronomy question is the crop's norm:
    # no IoT agent, whatever sensor words the quantity shares.
    decision = rules.classifier.classify(text, ClassifierContext())
    assert (decision.intent, decision.crew_needed) == ("decision", ())
    assert wants_advice(decision)


def test_a_follow_up_about_storage_moisture_goes_on_with_the_question(rules: Rulebook) -> None:
    after = ClassifierContext(recent_advice=True)
    for text in ("what moisture should it be stored at?", "а до якої вологості сушити?"):
        assert wants_advice(rules.classifier.classify(text, after)), text
    # A sensor, a field or "now" keeps it a reading, even right after a question.
    for text in ("що показують датчики вологості", "яка вологість на полі 3"):
        decision = rules.classifier.classify(text, after)
        assert decision.intent == Intent.IOT and not wants_advice(decision), text


@pytest.mark.parametrize(
    "text",
    [
        "полив 20 мм на полі 3",
        "spraying tomorrow on field 2",
        "буде полив на Північному в суботу",
        "вчора обприскування на Гірці",
    ],
)
def test_an_operation_told_with_its_field_day_or_amount_is_no_question(
    rules: Rulebook, text: str
) -> None:
    assert rules.knowledge.claim(text) == 0
    assert not wants_advice(rules.classifier.classify(text, ClassifierContext(grows_crops=True)))


@pytest.mark.parametrize(
    "text", ["умови обприскування", "коли краще полив на полі 3?", "чи можна обприскувати завтра"]
)
def test_the_same_topic_asked_is_a_question(rules: Rulebook, text: str) -> None:
    assert rules.knowledge.claim(text) == 2
