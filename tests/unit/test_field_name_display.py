"""The consent card shows an unknown field as it is called, not as it was inflected
(pipeline/farm/journal/card.py CardWriter.field_name, operations.toml
``nominative_endings``)."""

from __future__ import annotations

import pytest

from pipeline.farm.journal.card import CardWriter
from pipeline.farm.journal.draft import DraftOperation
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook


@pytest.fixture(scope="module")
def writer(rules: Rulebook, catalog: Catalog) -> CardWriter:
    return CardWriter(catalog, rules.operations.nominative_endings)


@pytest.mark.parametrize(
    ("phrase", "shown"),
    [
        ("північному", "Північне"),
        ("верхньому", "Верхнє"),
        ("Дальньому", "Дальнє"),
        ("східним", "Східне"),
        ("гора", "Гора"),  # a noun name: capitalised only
        ("біля ставу", "Біля ставу"),  # several words: as written
        ("дому", "Дому"),  # too short to be an adjective's stem and ending
        ("field 3", "Field 3"),
    ],
)
def test_a_field_reads_as_it_is_called(writer: CardWriter, phrase: str, shown: str) -> None:
    assert writer.field_name(phrase) == shown


def test_the_card_and_its_pending_line_use_the_name(writer: CardWriter, catalog: Catalog) -> None:
    body = DraftOperation.model_validate(
        {
            "op_type": "irrigation",
            "op_date": "2026-11-30",
            "status": "done",
            "field_phrase": "північному",
            "pending": {"field:північному": 1},
        }
    )
    card = writer.card([body], "uk")
    assert catalog.text("uk", "journal.line_field", field="Північне") in card
    assert catalog.text("uk", "journal.pending_field", term="Північне") in card
    assert "північному" not in card
