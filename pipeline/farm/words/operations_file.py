"""The shape of ``pipeline/rules/operations.toml`` (and ``crops.toml``) as pydantic
models, read through the rules schema once: the name rules
(:class:`~pipeline.farm.words.name_match.NameRules`), the units and the parser's
rules (:class:`~pipeline.farm.journal.parsing.OperationRules`) are built from it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, Text, load, parse

__all__ = ["CROPS_RULES", "OPERATIONS_RULES", "CropsFile", "OperationsFile"]

#: The parser's vocabulary.
OPERATIONS_RULES = RULES_DIR / "operations.toml"
#: Crops every farm shares.
CROPS_RULES = RULES_DIR / "crops.toml"

Words = tuple[str, ...]
Pairs = tuple[tuple[str, str], ...]


class SettingsTable(RulesModel):
    max_name_words: int = 4
    letter_swaps: Pairs = ()
    completive_prefixes: Words = ()


class OperationSpec(RulesModel):
    words: Words = ()
    weak: Words = ()
    crop_object: bool = False
    application: bool = False


class StatusTable(RulesModel):
    record: Words = ()
    plan: Words = ()
    future: Words = ()
    done: Words = ()
    past_endings: Words = ()
    future_endings: Words = ()
    present_endings: Words = ()
    future_suffixes: Words = ()


class GatesTable(RulesModel):
    questions: Words = ()
    lead_fillers: Words = ()
    auxiliaries: Words = ()
    pronouns: Words = ()
    blockers: Words = ()


class MoodTable(RulesModel):
    postpone: Words = ()
    wished: Words = ()
    negations: Words = ()
    answers: Words = ()
    partial: Words = ()
    cancel: Words = ()
    halt: Words = ()
    others: Words = ()
    trade: Words = ()
    elliptic: Words = ()
    intended: Words = ()
    contrast: Words = ()


class ClausesTable(RulesModel):
    conjunctions: Words = ()
    time_prepositions: Words = ()


class QuantitiesTable(RulesModel):
    yield_words: Words = ()
    labels: Words = ()
    dose_joiners: Words = ()
    each: Words = ()
    product_before: Words = ()
    bare_rates: dict[str, dict[str, float]] = Field(default_factory=dict)
    brand_suffixes: Words = ()


class FieldsTable(RulesModel):
    name_prepositions: Words = ()
    adjective_endings: Words = ()
    noun_adjective_endings: Words = ()
    nominative_endings: Pairs = ()
    list_joiners: Words = ()
    list_nouns: Words = ()
    number_markers: Words = ()
    numbered_before: Words = ()
    ordinal_prepositions: Words = ()
    ordinal_not_before: Words = ()
    number_label_cyrillic: str = "поле"
    number_label_latin: str = "field"


class CropsTable(RulesModel):
    markers: Words = ()
    not_crop_endings: Words = ()


class GenericTable(RulesModel):
    field: Words = ()
    crop: Words = ()
    operation: Words = ()
    product: Words = ()


class NamesTable(RulesModel):
    stopwords: Words = ()
    generic: GenericTable = GenericTable()
    ordinal_suffixes: Words = ()
    #: The words of 1, 2, 3 ... in this order.
    ordinals: tuple[Words, ...] = ()


class OperationsFile(RulesModel):
    version: int = 1
    settings: SettingsTable = SettingsTable()
    operations: dict[str, OperationSpec] = Field(default_factory=dict)
    #: Measures, their base units and reference amounts: read by
    #: :class:`~pipeline.farm.words.units.Units`, which checks them itself.
    units: dict[str, Any] = Field(default_factory=dict)
    status: StatusTable = StatusTable()
    gates: GatesTable = GatesTable()
    mood: MoodTable = MoodTable()
    clauses: ClausesTable = ClausesTable()
    quantities: QuantitiesTable = QuantitiesTable()
    names: NamesTable = NamesTable()
    fields: FieldsTable = FieldsTable()
    crops: CropsTable = CropsTable()

    @classmethod
    def load(cls, path: Path = OPERATIONS_RULES) -> OperationsFile:
        return load(path, cls)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> OperationsFile:
        return parse(raw, cls, source=OPERATIONS_RULES.name)


class SharedCrop(RulesModel):
    id: Text
    display: Text
    synonyms: Words = ()


class CropsFile(RulesModel):
    version: int = 1
    crops: tuple[SharedCrop, ...] = ()
