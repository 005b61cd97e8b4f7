"""The unit table's reference units (°C, cm, seeds per hectare ...): known to the
knowledge cards, read in questions, never taken by the operation parser."""

from __future__ import annotations

from datetime import date

from pipeline.farm.journal.parsing import OperationParser
from pipeline.text import tokenize
from tests.shared import rulebook

RULES = rulebook()
UNITS = RULES.units


def test_known_units_are_the_measures_and_the_reference_units() -> None:
    assert {"kg/ha", "l/ha", "t/ha", "mm", "k/ha"} <= UNITS.known
    assert {"C", "cm", "M_seeds/ha", "k_seeds/ha", "pcs/m2", "%_fc", "pH"} <= UNITS.known
    assert "furlongs/ha" not in UNITS.known


def test_a_reference_unit_is_read_in_a_question() -> None:
    tokens = tokenize("ґрунт прогрівся до 8 градусів")
    assert UNITS.reference_at(tokens, 4) == ("C", 1)
    assert UNITS.reference_at(tokenize("20 см"), 1) == ("cm", 1)
    assert UNITS.reference_at(tokenize("20 кг"), 1) is None


def test_the_operation_parser_ignores_reference_units() -> None:
    parser = OperationParser(RULES.operations)
    parsed = parser.parse(
        "запиши посів кукурудзи 70 тис/га, ґрунт 10 градусів",
        RULES.vocabulary.shared(),
        date(2026, 5, 14),
    )
    assert parsed is not None
    assert parsed.quantity == 70 and parsed.unit == "k/ha"
