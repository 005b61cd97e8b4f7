"""The correction intent's probe (pipeline/farm/journal/edits/probe.py): a message
routes as a correction when its two sides name the same kind of thing, whatever the
words, and a record or a plan said in passing does not."""

from __future__ import annotations

import pytest

from pipeline.types import ClassifierContext
from tests.shared import rulebook

CTX = ClassifierContext()


@pytest.mark.parametrize(
    "text",
    [
        "не вчера, а позавчера",
        "sorry, not 0.3 but 0.25",
        "not field 3 but field 5",
        "це була сівба, а не культивація",
        "это был посев, а не культивация",
        "не Децис, а Абакус",
        "дата не сьогодні, а вчора",
        "120, а не 150",
        "виправ: норма 120 кг/га",
        "зробили, що планували на вчора",
        "видали запис",
    ],
)
def test_a_correction_in_any_words_routes_as_one(text: str) -> None:
    assert rulebook().classifier.classify(text, CTX).intent == "correction"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("обприскали Поле 12 Раундапом 3 л/га", "recording"),
        ("заплануй культивацію на Полі 7 на завтра", "planning"),
        ("не встигли обприскати, бо дощ", None),
        ("привіт", "greeting"),
        ("не знаю, а ти як думаєш?", None),
    ],
)
def test_a_record_a_plan_or_talk_is_not_one(text: str, intent: str | None) -> None:
    decided = rulebook().classifier.classify(text, CTX).intent
    assert decided != "correction"
    if intent is not None:
        assert decided == intent
