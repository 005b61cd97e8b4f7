"""Every knowledge card is checked like code: a source, both languages, known units
with catalog names, ordered ranges, valid zones; and the loader refuses a broken one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.farm.dictionary import load_shared_crops
from pipeline.knowledge import KNOWLEDGE_DIR, ZONES, Card, load_knowledge
from pipeline.knowledge.model import ALL, DATE_UNIT, Value, month_day
from pipeline.language.catalog import Catalog
from tests.shared import rulebook

RULES = rulebook()
DATA = RULES.knowledge.data
CARDS = DATA.cards
CROP_TOPICS = (
    "sowing_window", "soil_temperature", "seeding_rate", "depth_spacing", "nutrition",
    "weeds", "pests", "diseases", "harvest", "storage",
)  # fmt: skip
REQUIRED_CROPS = (
    "crop:winter-wheat", "crop:winter-barley", "crop:spring-barley", "crop:maize",
    "crop:sunflower", "crop:winter-rapeseed", "crop:soy", "crop:peas", "crop:sugar-beet",
    "crop:potato", "crop:buckwheat",
)  # fmt: skip
GENERAL_TOPICS = ("spraying", "liming", "frost", "drought", "irrigation")


def _values(card: Card) -> list[Value]:
    return [*card.values, *(value for item in card.items for value in item.values)]


def test_every_required_crop_has_a_card_for_every_topic() -> None:
    have = {(card.crop, card.topic) for card in CARDS}
    missing = [(c, t) for c in REQUIRED_CROPS for t in CROP_TOPICS if (c, t) not in have]
    assert missing == []
    assert {card.topic for card in CARDS if card.crop is None} >= set(GENERAL_TOPICS)


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.id)
def test_card_names_its_source_and_speaks_both_languages(card: Card) -> None:
    assert card.sources
    for source in card.sources:
        assert source.institution.uk and source.institution.en
        assert source.document.uk and source.document.en
        assert source.year is not None or source.url
    assert card.text.uk.strip() and card.text.en.strip()
    assert card.text.uk != card.text.en
    for item in card.items:
        assert item.name.uk and item.name.en
        for text in (item.note, item.window):
            assert text is None or (text.uk and text.en)
        assert all(active.uk and active.en for active in item.actives)


@pytest.mark.parametrize("card", CARDS, ids=lambda card: card.id)
def test_card_values_have_known_units_ordered_ranges_and_valid_zones(
    card: Card, catalog: Catalog
) -> None:
    for value in _values(card):
        assert value.unit == DATE_UNIT or value.unit in RULES.units.known, value
        if value.unit != DATE_UNIT:
            for lang in ("uk", "en"):
                assert catalog.has(lang, f"unit.{value.unit}"), value.unit
        assert catalog.has("uk", f"knowledge.value.{value.key}"), value.key
        zones = set(value.spans)
        assert zones == {ALL} or zones == set(ZONES), value
        for low, high in value.spans.values():
            assert low <= high, value


def test_sowing_windows_fall_in_the_crop_season() -> None:
    """A swapped month ("04" for "09") would put an autumn crop in spring."""
    for card in CARDS:
        window = card.value("window")
        if window is None or card.crop is None:
            continue
        season = DATA.crops[card.crop].season
        months = {month_day(day)[0] for span in window.spans.values() for day in span}
        allowed = range(8, 11) if season == "winter" else range(3, 7)
        assert months <= set(allowed), (card.id, months)


def test_seeding_rates_are_per_hectare() -> None:
    for card in CARDS:
        if card.topic == "seeding_rate":
            rate = card.value("rate")
            assert rate is not None and rate.unit.endswith("/ha"), card.id


def test_every_oblast_is_mapped_to_a_zone_and_found_by_its_name() -> None:
    regions = DATA.regions
    assert len(regions) == 27  # 24 oblasts, Crimea, Kyiv and Sevastopol cities
    reader = RULES.knowledge.reader
    for region in regions.values():
        assert region.zone in ZONES
        found, _ = reader.place(region.name.uk)
        assert found is not None, region.id
        assert regions[found].zone == region.zone, region.id


def test_topic_names_are_in_both_catalogs(catalog: Catalog) -> None:
    for topic in DATA.topics:
        for lang in ("uk", "en"):
            assert catalog.has(lang, f"knowledge.topic.{topic}")
    for zone in ZONES:
        assert catalog.has("en", f"knowledge.zone.{zone}")


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE_DIR, target)
    return target


def _load(directory: Path) -> None:
    load_knowledge(
        directory,
        units=RULES.units.known,
        crop_ids=[entry.canonical_id for entry in load_shared_crops()],
    )


BROKEN = """
version = 1

[crop]
id = "crop:millet"
season = "spring"
name = { uk = "Просо", en = "Millet" }

[[cards]]
topic = "seeding_rate"
sources = ["lykhochvor_2010"]
text.uk = "Текст."
values = [
    { key = "rate", unit = "furlongs/ha", all = [1, 2] },
    { key = "depth", unit = "cm", all = [6, 3] },
    { key = "window", unit = "date", tundra = ["05-01", "05-10"] },
]

[[cards]]
topic = "harvest"
sources = []
text.uk = "Текст."
text.en = "Text."
"""


def test_loader_refuses_a_broken_card_and_names_every_problem(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    (directory / "cards" / "millet.toml").write_text(BROKEN, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        _load(directory)
    message = str(error.value)
    assert "text missing in en" in message
    assert "unknown unit 'furlongs/ha'" in message
    assert "range not ordered" in message
    assert "unknown zone(s) ['tundra']" in message
    assert "names no source" in message


def test_loader_refuses_an_unknown_source_and_an_oblast_without_a_zone(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    card = directory / "cards" / "maize.toml"
    card.write_text(
        card.read_text(encoding="utf-8").replace('"lykhochvor_2010"', '"no_such_book"', 1),
        encoding="utf-8",
    )
    zones = directory / "zones.toml"
    zones.write_text(
        zones.read_text(encoding="utf-8").replace('zone = "polissia"', 'zone = "taiga"', 1),
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as error:
        _load(directory)
    assert "unknown source(s) ['no_such_book']" in str(error.value)
    assert "zone/also must be among" in str(error.value)


def test_the_shipped_base_loads_clean() -> None:
    _load(KNOWLEDGE_DIR)
