"""A question about what the journal holds is a look-back (summary), not a record
(brief journalview): a question word or "show" with a record verb in the past, the
journal itself, or "which work was done" names what is written, not new work."""

from __future__ import annotations

import pytest

from pipeline.gate import select_crew
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext


def routed(rules: Rulebook, text: str) -> tuple[str, str, tuple[str, ...]]:
    decision = rules.classifier.classify(text, ClassifierContext())
    return decision.mode, decision.intent, select_crew(decision, has_iot=True)


@pytest.mark.parametrize(
    "text",
    [
        "що записано за тиждень?",
        "що ми записали вчора",
        "шо внесли в журнал за травень",
        "покажи журнал",
        "журнал операцій",
        "покажіть, будь ласка, що зафіксовано по полю 3",
        "які роботи були на полі 3 у травні",
        "які операції проводились на Північному",
        "что записано за неделю",
        "какие работы были на поле 2",
        "what did we record last week",
        "show me the journal for april",
        "what operations were done on field 3",
        "що робили на полі 2 минулого тижня?",
    ],
)
def test_a_question_about_the_journal_is_a_summary(rules: Rulebook, text: str) -> None:
    assert routed(rules, text) == ("deep", "summary", ("sustainability",))


@pytest.mark.parametrize(
    "text",
    [
        "запиши полив 20 мм на полі 3",
        "вчора посіяли кукурудзу на південному",
        "записали полив 20 мм на полі 3",
        "внеси в журнал обприскування поля 2 Децисом",
        "запишіть що вчора внесли 100 кг селітри на поле 2",
        "внесли карбамід 150 кг/га на північному",
    ],
)
def test_new_work_is_still_a_record(rules: Rulebook, text: str) -> None:
    assert routed(rules, text) == ("deep", "recording", ("ops",))


@pytest.mark.parametrize(
    "text",
    ["записали за тиждень?", "записано щось на Північному за травень?", "logged anything today?"],
)
def test_a_question_mark_asks_what_was_recorded(rules: Rulebook, text: str) -> None:
    """No question word: the question mark (which the tokeniser drops) is read by the
    look-back probe."""
    assert routed(rules, text) == ("deep", "summary", ("sustainability",))


@pytest.mark.parametrize(
    "text",
    [
        # the same words without the question mark: a record
        "записали за тиждень",
        # a record command, asked or not
        "запиши полив 20 мм на полі 3?",
        # work told as a question ("внесли" tells the work, not the writing)
        "внесли 100 кг селітри на поле 2?",
        "вчора посіяли кукурудзу на південному?",
    ],
)
def test_a_question_mark_alone_does_not_undo_a_record(rules: Rulebook, text: str) -> None:
    assert routed(rules, text)[1] == "recording"
