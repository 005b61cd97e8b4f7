"""The farm the operation-parsing tests read messages for (test_operation_parsing.py,
test_farm_dictionary.py): its fields and a product with their synonyms, the parser and
the name rules from the shipped rules, and the week around ``TODAY`` (a Thursday)."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.dictionary import Dictionary, DictionaryEntry
from pipeline.farm.journal.parsing import OperationParser
from tests.shared import rulebook

TODAY = date(2026, 5, 14)  # Thursday
MON, TUE, WED, FRI, SAT = (date(2026, 5, d) for d in (11, 12, 13, 15, 16))
LAST_SAT, NEXT_MON, NEXT_TUE, NEXT_WED, NEXT_THU = (date(2026, 5, d) for d in (9, 18, 19, 20, 21))


def field_entry(canonical_id: str, display: str, *synonyms: str) -> DictionaryEntry:
    return DictionaryEntry("field", canonical_id, display, synonyms)


FARM_ENTRIES = (
    field_entry("field:pivnichne", "Північне", "північне поле", "north", "north field"),
    field_entry("field:pivdenne", "Південне", "південне поле", "south", "south field"),
    field_entry("field:zakhidne", "Західне", "західне поле", "west field"),
    field_entry("field:pole-3", "Поле 3", "поле 3", "field 3", "3"),
    field_entry("field:pole-7", "Поле 7", "поле 7", "field 7"),
    field_entry("field:pole-9", "Поле 9", "поле 9", "field 9"),
    field_entry("field:hirka", "Гірка", "hill", "hill field"),
    field_entry("field:stavok", "Ставок", "біля ставка"),
    field_entry("field:viazove", "В'язове"),
    DictionaryEntry("product", "product:abacus", "Абакус", ("abacus", "абакус ультра")),
)


RULES = rulebook()
parse_operation = OperationParser(RULES.operations).parse
NAME_RULES = RULES.vocabulary.rules


@pytest.fixture(scope="module")
def farm() -> Dictionary:
    """The farm's dictionary: its entries and the shared crops."""
    return RULES.vocabulary.dictionary(FARM_ENTRIES)
