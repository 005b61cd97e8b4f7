"""A card's value reads as an agronomist says it (issue 30 point 3): the label before
the colon, the words that lead into the number after it («не нижче 8–10 °C», «через
3–5 днів»), a counted unit agreeing with the last number, ranges low to high."""

from __future__ import annotations

import re

import pytest

from pipeline.knowledge import Composer
from pipeline.knowledge.model import Value
from pipeline.knowledge.render import ValueText
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Language
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

RULES = rulebook()
KB = RULES.knowledge
CATALOG = shared_catalog()

#: Words that govern what follows them: a label ending in one leaves the value hanging
#: after a colon («не нижче: 8–10 °C», «через: 3–5 дн.»).
GOVERNING = {
    "uk": {"до", "від", "через", "за", "нижче", "вище", "щонайменше", "понад", "після", "—"},
    "en": {"to", "from", "in", "after", "than", "least", "at", "—"},
}
#: Two numbers of a range as the cards' texts write them.
_RANGE = re.compile(r"(?<![\d.,])([−-]?\d+(?:[.,]\d+)?)\s*(?:…|–)\s*([−-]?\d+(?:[.,]\d+)?)(?!\d)")


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", "."))


def _keys() -> list[str]:
    keys = {value.key for card in KB.data.cards for value in card.values}
    keys |= {value.key for card in KB.data.cards for item in card.items for value in item.values}
    return sorted(keys)


@pytest.mark.parametrize("lang", ["uk", "en"])
@pytest.mark.parametrize("key", _keys())
def test_no_label_ends_in_a_word_that_governs_its_value(lang: Language, key: str) -> None:
    label = CATALOG.text(lang, f"knowledge.value.{key}")
    last = label.split()[-1].lower()
    assert last not in GOVERNING[lang], f"{key}: «{label}:» — the lead belongs to the value"


def _out(lang: Language) -> ValueText:
    return ValueText(Texts(CATALOG, lang))


@pytest.mark.parametrize(
    ("lang", "key", "unit", "span", "written"),
    [
        ("uk", "soil_min", "C", (8, 10), "не нижче 8–10 °C"),
        ("uk", "skin_set_days", "days", (14, 21), "через 14–21 день"),
        ("uk", "assess_after", "days", (3, 5), "через 3–5 днів"),
        ("uk", "assess_after", "days", (2, 3), "через 2–3 дні"),
        ("uk", "assess_after", "days", (1, 1), "через 1 день"),
        ("uk", "wind_max", "m/s", (3, 4), "не сильніший за 3–4 м/с"),
        ("uk", "rain_free", "h", (3, 6), "щонайменше 3–6 год"),
        ("uk", "survives_to", "C", (-3, -2), "до −3…−2 °C"),
        ("uk", "harvest_moisture", "%", (12, 14), "12–14 %"),
        ("en", "skin_set_days", "days", (14, 21), "in 14–21 days"),
        ("en", "assess_after", "days", (1, 1), "after 1 day"),
        ("en", "wind_max", "m/s", (3, 4), "no stronger than 3–4 m/s"),
    ],
)
def test_a_value_reads_with_its_lead_and_a_counted_unit(
    lang: Language, key: str, unit: str, span: tuple[float, float], written: str
) -> None:
    assert _out(lang).value(Value(key, unit, {"all": span}), None) == written


def test_a_negative_range_is_written_low_to_high() -> None:
    out = _out("uk")
    assert out.span(-3, -2, "C") == "−3…−2 °C"
    assert out.span(-2, 3, "C") == "−2…3 °C"


def test_a_unit_of_one_form_is_the_replys_language(catalog: Catalog) -> None:
    """A unit without plural forms stays in the reply's language when counted."""
    assert catalog.plural("en", "unit.m/s", 4) == "m/s"
    assert catalog.plural("uk", "unit.m/s", 4) == "м/с"


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("коли копати картоплю", "• Копати після знищення бадилля: через 14–21 день"),
        (
            "температура ґрунту для сівби кукурудзи",
            "• Температура ґрунту на глибині загортання: не нижче 8–10 °C",
        ),
        ("після заморозку коли оцінити пошкодження", "• Оцінити пошкодження: через 3–5 днів"),
    ],
)
def test_a_card_answer_reads_naturally(question: str, line: str) -> None:
    composer = Composer(KB, CATALOG, RULES.vocabulary)
    answer = composer.compose(KB.lookup(question), lang="uk", level="expert", farm_facts=None)
    assert line in answer.text.splitlines(), answer.text
    assert "через:" not in answer.text and "нижче:" not in answer.text and "дн." not in answer.text


def test_the_cards_texts_write_ranges_low_to_high() -> None:
    for card in KB.data.cards:
        texts = [card.text.uk, card.text.en]
        texts += [t for item in card.items if item.note for t in (item.note.uk, item.note.en)]
        for text in texts:
            for low, high in _RANGE.findall(text):
                assert _number(low) <= _number(high), f"{card.id}: {low}…{high} in {text!r}"
