"""The recall rules (pipeline/rules/recall.toml): what counts as the same subject and
what as a status question, on phrasings the rules were not written from; and a
broken rules file is named."""

from __future__ import annotations

import tomllib

import pytest

from pipeline.recall.rules import RECALL_RULES, RecallRules
from pipeline.recall.subject import is_status_question, subject_of

RULES = RecallRules.load()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("яка вологість на полі 2", "А яка вологість на полі 2?"),
        ("покажи вологість ґрунту на Північному", "вологість ґрунту Північне"),
        ("what's the soil moisture on field 2", "soil moisture on field 2 please"),
        ("план/факт за квітень", "план факт за квітень"),
        ("какая влажность на поле 2", "а влажность на поле 2?"),
    ],
)
def test_rephrasings_are_one_subject(first: str, second: str) -> None:
    assert subject_of(first, RULES.subject) == subject_of(second, RULES.subject)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("яка вологість на полі 2", "яка вологість на полі 3"),
        ("яка вологість на полі 2", "яка температура на полі 2"),
        ("план/факт за квітень", "план/факт за травень"),
        ("звіт за жовтень", "звіт за вересень"),
    ],
)
def test_another_field_period_or_measure_is_another_subject(first: str, second: str) -> None:
    assert subject_of(first, RULES.subject) != subject_of(second, RULES.subject)


@pytest.mark.parametrize(
    "text",
    ["Який статус?", "що зараз", "Що там нового?", "як там зараз на фермі?", "status?",
     "what's new", "какая обстановка", "що зараз на полях?", "статус по фермі"],
)  # fmt: skip
def test_status_questions(text: str) -> None:
    assert is_status_question(text, RULES.status)


@pytest.mark.parametrize(
    "text",
    ["яка вологість на полі 2", "запиши полив 20 мм", "привіт", "дякую",
     "розкажи мені будь ласка детально що зараз треба робити з попелицею на пшениці"],
)  # fmt: skip
def test_not_status_questions(text: str) -> None:
    assert not is_status_question(text, RULES.status)


def test_a_broken_rules_file_is_named() -> None:
    with RECALL_RULES.open("rb") as handle:
        raw = tomllib.load(handle)
    raw["repeat"]["intents"] = ["no_such_intent"]
    with pytest.raises(ValueError, match="recall rules"):
        RecallRules.from_mapping(raw)
    raw = tomllib.loads(RECALL_RULES.read_text(encoding="utf-8"))
    raw["conversation"]["max_lines"] = 9
    with pytest.raises(ValueError, match="max_lines"):
        RecallRules.from_mapping(raw)
