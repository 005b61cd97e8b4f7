"""One name for one operation (issue 30 point 4): the journal card, the journal list,
the plans and the Excel report all read ``operation.<type>``; there is no second list
(the report once said «Коткування» where the card said «прикочування»). And a crop
always starts with a capital, wherever it is named."""

from __future__ import annotations

import tomllib

import pytest

from pipeline.farm.dictionary import DictionaryEntry
from pipeline.farm.journal.card import crop_label
from pipeline.farm.naming import FarmNames
from pipeline.farm.reports import Labels, op_label
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Language
from tests.conftest import REPO
from tests.shared import rulebook

RULES = rulebook()

OPERATIONS = tomllib.loads((REPO / "pipeline/rules/operations.toml").read_text("utf-8"))
TYPES = sorted(OPERATIONS["operations"])


@pytest.mark.parametrize("lang", ["uk", "en"])
@pytest.mark.parametrize("op_type", TYPES)
def test_every_operation_has_one_name_everywhere(
    catalog: Catalog, lang: Language, op_type: str
) -> None:
    texts = Texts(catalog, lang)
    name = catalog.text(lang, f"operation.{op_type}")
    label = op_label(texts, op_type)
    assert label == name[:1].upper() + name[1:]
    assert op_label(texts, f"operation:{op_type}") == label


def test_no_second_list_of_operation_names(catalog: Catalog) -> None:
    for lang in ("uk", "en"):
        assert not [key for key in catalog.keys(lang) if key.startswith("reports.op.")]  # type: ignore[arg-type]


def test_rolling_is_called_as_an_agronomist_calls_it(catalog: Catalog) -> None:
    texts = Texts(catalog, "uk")
    assert catalog.text("uk", "operation.rolling") == "коткування"
    assert op_label(texts, "rolling") == "Коткування"


def test_an_unknown_operation_is_still_readable(catalog: Catalog) -> None:
    assert op_label(Texts(catalog, "uk"), "operation:deep_loosening") == "Deep loosening"


def test_a_farms_own_crop_is_capitalised_like_the_shared_ones(catalog: Catalog) -> None:
    """A crop an operator approved as the farmer wrote it («ясон») reads «Ясон» in the
    card, the lists and the report, beside the shared list's «Соняшник»."""
    own = DictionaryEntry("crop", "crop:yason", "ясон", ())
    dictionary = RULES.vocabulary.dictionary([own])
    assert crop_label(dictionary, "crop:yason", "uk") == "Ясон"
    assert crop_label(dictionary, "crop:sunflower", "uk") == "Соняшник"
    assert crop_label(None, "crop:sugar-beet", "uk") == "Sugar beet"
    labels = Labels(Texts(catalog, "uk"), {}, {"crop:yason": "ясон"})
    assert labels.crop("crop:yason") == "Ясон"
    assert FarmNames(crops={"crop:yason": "ясон"}).crop("crop:yason") == "Ясон"
