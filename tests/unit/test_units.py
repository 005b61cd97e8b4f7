"""The one unit table ([units] of operations.toml): the operation parser and the season
summary read a unit the same way."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.journal.parsing import OperationParser
from pipeline.farm.words.units import Unit
from tests.shared import rulebook

RULES = rulebook()
UNITS = RULES.units
TODAY = date(2026, 5, 14)


@pytest.mark.parametrize(
    ("written", "unit"),
    [
        ("кг/га", Unit("kg", 1.0, True, "kg")),
        ("kg/ha", Unit("kg", 1.0, True, "kg")),
        ("т", Unit("kg", 1000.0, False, "t")),
        ("ц/га", Unit("kg", 100.0, True, "centner")),
        ("г", Unit("kg", 0.001, False, "g")),
        ("мл", Unit("l", 0.001, False, "ml")),
        ("l/ha", Unit("l", 1.0, True, "l")),
        ("мм", Unit("mm", 1.0, False, "mm")),
        ("м³", Unit("m3", 1.0, False, "m3")),
        ("m3/ha", Unit("m3", 1.0, True, "m3")),
        ("шт", Unit("шт", 1.0, False)),
        ("kg/m2", Unit("kg/m2", 1.0, False)),
        ("l/t", Unit("l/t", 1.0, False)),
    ],
)
def test_stored_units(written: str, unit: Unit) -> None:
    assert UNITS.parse(written) == unit


@pytest.mark.parametrize(
    ("text", "quantity", "unit"),
    [
        ("внесли карбамід 150 кг/га поле 3", 150.0, "kg/ha"),
        ("обмолот поле 3 45 ц/га", 4.5, "t/ha"),
        ("полили поле 3 20 мм", 20.0, "mm"),
    ],
)
def test_the_parser_writes_units_the_summary_reads(text: str, quantity: float, unit: str) -> None:
    parsed = OperationParser(RULES.operations).parse(text, RULES.vocabulary.dictionary(), TODAY)
    assert parsed is not None and (parsed.quantity, parsed.unit) == (quantity, unit)
    read = UNITS.parse(parsed.unit)
    assert read.per_ha == unit.endswith("/ha")
    assert read.measure is not None
