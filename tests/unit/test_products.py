"""The product catalogue (``pipeline/rules/products.toml``): canonical names whatever
the case or spelling, a type that implies an operation, checked as it loads."""

from __future__ import annotations

import pytest

from pipeline.farm.products import Catalogue
from pipeline.grammar import Grammar
from tests.shared import rulebook

CATALOGUE = rulebook().catalogue
OPERATIONS = {"spraying", "fertilising", "seed_treatment", "sowing"}


def test_every_entry_is_complete() -> None:
    assert len(CATALOGUE.products) >= 80
    for product in CATALOGUE.products:
        assert product.implies in OPERATIONS, product.name
        if not product.generic:
            assert product.active, product.name
            assert product.unit in {"l/ha", "kg/ha", "t/ha", "l/t"}, product.name


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("аміачна селітра", "аміачна селітра"),
        ("аміачної селітри", "аміачна селітра"),
        ("аміачною селітрою", "аміачна селітра"),
        ("аммиачной селитрой", "аміачна селітра"),
        ("ammonium nitrate", "аміачна селітра"),
        ("селітру", "аміачна селітра"),
        ("сульфатом амонію", "сульфат амонію"),
        ("Раундапом", "Раундап"),
        ("Roundup", "Раундап"),
        ("карбамідом", "карбамід"),
        ("urea", "карбамід"),
        ("Прима Форте", "Пріма Форте"),
        ("Прима", "Пріма"),
        ("Амістар Голд", "Амістар Голд"),
        ("Амістаром", "Амістар Екстра"),
        ("Децисом", "Децис"),
        ("Reglone", "Реглон"),
        ("Бі-58", "Бі-58"),
        ("вапна", "вапно"),
        ("гербіцидом", "гербіцид"),
    ],
)
def test_canonical_names(written: str, name: str) -> None:
    product = CATALOGUE.resolve(written)
    assert product is not None, written
    assert product.name == name


@pytest.mark.parametrize("word", ["максимально", "приманка", "скоро", "пумпа", "поле", "ураган"])
def test_ordinary_words_are_no_product(word: str) -> None:
    assert CATALOGUE.resolve(word) is None


def test_types_imply_operations() -> None:
    implied = {p.name: p.implies for p in CATALOGUE.products}
    assert implied["Абакус"] == "spraying"
    assert implied["КАС"] == "fertilising"
    assert implied["Максим"] == "seed_treatment"
    assert implied["насіння"] == "sowing"


def test_an_unknown_type_stops_loading() -> None:
    raw = {"types": {"herbicide": "spraying"},
           "products": [{"name": "X", "type": "potion", "terms": ["x"]}]}  # fmt: skip
    with pytest.raises(ValueError, match="unknown type"):
        Catalogue.from_mapping(raw, Grammar.load())


def test_a_name_listed_twice_stops_loading() -> None:
    item = {"name": "X", "type": "herbicide", "terms": ["x"]}
    raw = {"types": {"herbicide": "spraying"}, "products": [item, item]}
    with pytest.raises(ValueError, match="twice"):
        Catalogue.from_mapping(raw, Grammar.load())
