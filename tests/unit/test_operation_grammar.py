"""Grammar the operation parser reads by rule, not by sentence: ordinal and cardinal
field numbers in words, a count of days after a field, a finishing prefix on any
operation word, spoken thousands. The farm and ``TODAY`` are in operation_world.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pipeline.farm.dictionary import Dictionary
from tests.unit import operation_world as world
from tests.unit.operation_world import TODAY, parse_operation

farm = world.farm


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("на третьому полі прикатали", "field:pole-3"),
        ("на дев'ятому полі прикатали", "field:pole-9"),
        ("прикатали сьоме поле", "field:pole-7"),
        ("прикатали поле сім", "field:pole-7"),
        ("rolled field nine", "field:pole-9"),
    ],
)
def test_field_numbers_in_words(farm: Dictionary, text: str, field: str) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and op.field_id == field


@pytest.mark.parametrize(
    ("text", "number"),
    [("на чотирнадцятому полі обприскали", 14), ("обприскали двадцяте поле", 20)],
)
def test_an_unknown_field_named_by_an_ordinal_is_its_number(
    farm: Dictionary, text: str, number: int
) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and op.field_phrase is not None
    unknown = dict(op.unknown_terms)
    assert op.field_id is None and unknown.get("field", "").endswith(str(number))


@pytest.mark.parametrize(
    ("text", "days"),
    [("disked the hill field two days ago", 2), ("прикатали Гірку 3 дні тому", 3)],
)
def test_a_count_of_days_after_a_field_is_a_date(farm: Dictionary, text: str, days: int) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and op.field_id == "field:hirka"
    assert op.op_date == TODAY - timedelta(days=days)


@pytest.mark.parametrize(
    ("text", "op_type"),
    [
        ("досіяли горох на Гірці", "sowing"),
        ("дозбирали ячмінь на полі 7", "harvest"),
        ("дообприскали поле 9", "spraying"),
        ("доорали Західне", "tillage"),
    ],
)
def test_a_finishing_prefix_keeps_the_operation(farm: Dictionary, text: str, op_type: str) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and op.op_type == op_type


@pytest.mark.parametrize("text", ["посіяли кукурудзу 70 тищ на гектар", "посеяли 70 тыщ на га"])
def test_spoken_thousands_are_a_seeding_rate(farm: Dictionary, text: str) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and (op.rate, op.rate_unit) == (70, "k/ha")


@pytest.mark.parametrize(
    "text", ["гречку коли косити у валки", "Гірку чим обробити від бур'янів", "ячмінь коли збирати"]
)
def test_a_crop_or_field_put_before_the_question_is_still_a_question(
    farm: Dictionary, text: str
) -> None:
    assert parse_operation(text, farm, TODAY) is None


def test_a_crop_put_first_in_a_told_operation_is_recorded(farm: Dictionary) -> None:
    op = parse_operation("кукурудзу як завжди обприскали на Гірці", farm, TODAY)
    assert op is not None and op.op_type == "spraying"


@pytest.mark.parametrize(
    ("text", "rate"),
    [("посіяли горох 1,1 млн насінин на гектар", 1100), ("sowed peas 1.2 million seeds/ha", 1200)],
)
def test_millions_of_seeds_are_thousands_per_hectare(
    farm: Dictionary, text: str, rate: float
) -> None:
    op = parse_operation(text, farm, TODAY)
    assert op is not None and (op.rate, op.rate_unit) == (rate, "k/ha")
