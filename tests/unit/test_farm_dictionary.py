"""The farm's dictionary: field, crop and product names resolved as a farmer writes
them (inflections, synonyms, Russian only through a synonym), close names kept apart,
shared crops with stable ids, ambiguous names resolving to nothing."""

from __future__ import annotations

import pytest

from pipeline.farm.dictionary import Dictionary, DictionaryEntry, load_shared_crops
from tests.unit import operation_world as world
from tests.unit.operation_world import (
    FARM_ENTRIES,
    NAME_RULES,
    RULES,
    TODAY,
    field_entry,
    parse_operation,
)

#: The farm's dictionary (a module fixture).
farm = world.farm


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("Північне", "field:pivnichne"),
        ("на Північному", "field:pivnichne"),
        ("північне поле", "field:pivnichne"),
        ("Північного", "field:pivnichne"),
        ("північним полем", "field:pivnichne"),
        ("ПІВНІЧНЕ", "field:pivnichne"),
        ("Пвнічне", "field:pivnichne"),  # one letter dropped
        ("Пивнічному", "field:pivnichne"),  # one letter changed
        ("Пiвнiчне", "field:pivnichne"),  # Latin i typed inside
        ("north field", "field:pivnichne"),
        ("Південному", "field:pivdenne"),
        ("на Гірці", "field:hirka"),  # к/ц alternation
        ("Гірку", "field:hirka"),
        ("на Ставку", "field:stavok"),  # the о drops out
        ("В'язове", "field:viazove"),
        ("в’язовому", "field:viazove"),
        ("вязове", "field:viazove"),
        ("В`язового", "field:viazove"),
        ("поле 3", "field:pole-3"),
        ("поле №3", "field:pole-3"),
        ("field 3", "field:pole-3"),
        ("3-є поле", "field:pole-3"),
        ("третє поле", "field:pole-3"),
        ("полі 03", "field:pole-3"),
        ("3", "field:pole-3"),
        ("field 9", "field:pole-9"),
        ("на полі 7", "field:pole-7"),
    ],
)
def test_resolve_field(farm: Dictionary, phrase: str, expected: str) -> None:
    entry = farm.resolve("field", phrase)
    assert entry is not None, phrase
    assert entry.canonical_id == expected


@pytest.mark.parametrize(
    "phrase",
    [
        "поле 4",
        "поле 33",
        "на Северном",  # no translation without a synonym
        "Північно-західне",
        "Гора",
        "поле",
        "на",
        "",
        "Східне",
    ],
)
def test_resolve_field_unknown(farm: Dictionary, phrase: str) -> None:
    assert farm.resolve("field", phrase) is None


def test_close_names_stay_apart(farm: Dictionary) -> None:
    north, south = farm.resolve("field", "Північне"), farm.resolve("field", "Південне")
    assert north is not None and south is not None
    assert (north.canonical_id, south.canonical_id) == ("field:pivnichne", "field:pivdenne")
    assert farm.resolve("field", "південному полі") == south


def test_russian_name_only_through_a_synonym() -> None:
    plain = Dictionary([field_entry("field:pivnichne", "Північне")], rules=NAME_RULES)
    assert plain.resolve("field", "на Северном") is None
    with_ru = Dictionary([field_entry("field:pivnichne", "Північне", "Северное")], rules=NAME_RULES)
    entry = with_ru.resolve("field", "на Северном")
    assert entry is not None and entry.canonical_id == "field:pivnichne"


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("кукурудзу", "crop:maize"),
        ("кукуруза", "crop:maize"),
        ("corn", "crop:maize"),
        ("maize", "crop:maize"),
        ("соняшнику", "crop:sunflower"),
        ("подсолнечника", "crop:sunflower"),
        ("сою", "crop:soy"),
        ("сої", "crop:soy"),
        ("пшениці", "crop:wheat"),
        ("озимої пшениці", "crop:winter-wheat"),
        ("winter wheat", "crop:winter-wheat"),
        ("ячменю", "crop:barley"),
        ("вівса", "crop:oats"),
        ("ріпаку", "crop:rapeseed"),
        ("рапс", "crop:rapeseed"),
        ("сахарной свеклы", "crop:sugar-beet"),
        ("гороху", "crop:peas"),
        ("картоплю", "crop:potato"),
        ("жита", "crop:rye"),
        ("гречку", "crop:buckwheat"),
    ],
)
def test_resolve_shared_crop(farm: Dictionary, phrase: str, expected: str) -> None:
    entry = farm.resolve("crop", phrase)
    assert entry is not None, phrase
    assert entry.canonical_id == expected


def test_shared_crops_load_with_stable_ids() -> None:
    ids = {entry.canonical_id for entry in load_shared_crops()}
    assert {"crop:wheat", "crop:maize", "crop:sunflower", "crop:soy"} <= ids
    assert all(entry.kind == "crop" and entry.canonical_id.startswith("crop:") for entry in
               load_shared_crops())  # fmt: skip


def test_farm_entry_wins_over_shared_and_keeps_its_synonyms() -> None:
    own = DictionaryEntry("crop", "crop:wheat", "Пшениця Скаген", ("скаген",))
    farm = RULES.vocabulary.dictionary([own])
    for phrase in ("скаген", "wheat", "пшениці"):
        entry = farm.resolve("crop", phrase)
        assert entry is not None, phrase
        assert (entry.canonical_id, entry.display) == ("crop:wheat", "Пшениця Скаген")


def test_two_entries_with_one_name_resolve_to_none() -> None:
    farm = Dictionary(
        [field_entry("field:a", "Лан", "центр"), field_entry("field:b", "Клин", "центр")],
        rules=NAME_RULES,
    )
    assert farm.resolve("field", "центр") is None
    entry = farm.resolve("field", "Клин")
    assert entry is not None and entry.canonical_id == "field:b"


def test_kinds_are_separate(farm: Dictionary) -> None:
    assert farm.resolve("crop", "Північне") is None
    assert farm.resolve("field", "кукурудза") is None
    product = farm.resolve("product", "abacus")
    assert product is not None and product.display == "Абакус"


def test_dictionary_without_shared_crops_knows_no_crop() -> None:
    farm = Dictionary(FARM_ENTRIES, rules=NAME_RULES)
    assert farm.resolve("crop", "пшениця") is None
    parsed = parse_operation("посіяли пшеницю на полі 3", farm, TODAY)
    assert parsed is not None
    assert parsed.crop_id is None
    assert parsed.unknown_terms == (("crop", "пшеницю"),)
