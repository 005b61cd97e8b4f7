"""The shape of a card file (``pipeline/rules/knowledge/cards/*.toml``) as pydantic
models, read through the rules schema: a wrong type or a misspelt key is a one-line
error naming the file and the key. What needs the other files (topics, sources,
units, zones, crops) is checked by the loader, which collects every such problem."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pipeline.rules.schema import RulesModel

__all__ = [
    "ActivesTable",
    "CardFile",
    "CardTable",
    "CropTable",
    "ItemTable",
    "LocalText",
    "QuestionsFile",
    "RotationTable",
    "SourcesFile",
    "ZonesFile",
]

Strings = tuple[str, ...]


class LocalText(RulesModel):
    """A text in both catalog languages (a missing one is the loader's problem)."""

    uk: str = ""
    en: str = ""


class ActivesTable(RulesModel):
    uk: tuple[str, ...] = ()
    en: tuple[str, ...] = ()


#: A value: ``key``, ``unit``, optional ``bound`` and its spans under ``all`` or the
#: zone names (checked by pipeline.knowledge.parse.values, every problem collected).
ValueTable = dict[str, Any]


class ItemTable(RulesModel):
    name: LocalText | None = None
    crop: str | None = None
    terms: tuple[str, ...] = ()
    values: tuple[ValueTable, ...] = ()
    note: LocalText | None = None
    window: LocalText | None = None
    actives: ActivesTable = ActivesTable()


class RotationTable(RulesModel):
    good: Strings = ()
    bad: Strings = ()
    next: Strings = ()
    avoid: Strings = ()
    good_text: LocalText | None = None
    bad_text: LocalText | None = None
    next_text: LocalText | None = None
    avoid_text: LocalText | None = None


class CardTable(RulesModel):
    topic: str = ""
    sources: tuple[str, ...] = ()
    text: LocalText | None = None
    values: tuple[ValueTable, ...] = ()
    items: tuple[ItemTable, ...] = ()
    keywords: tuple[str, ...] = ()
    rotation: RotationTable | None = None


class CropTable(RulesModel):
    id: str
    name: LocalText | None = None
    season: str = ""


class CardFile(RulesModel):
    version: Literal[1]
    crop: CropTable | None = None
    cards: tuple[CardTable, ...] = ()


# --- sources.toml, questions.toml, zones.toml: their shapes. What needs the other
# files (a topic's scope, a known crop or zone, a year in range) is the loader's. ---


class SourceTable(RulesModel):
    institution: LocalText | None = None
    document: LocalText | None = None
    year: int | None = None
    undated: bool = False
    url: str | None = None


class SourcesFile(RulesModel):
    version: Literal[1]
    sources: dict[str, SourceTable] = Field(default_factory=dict)


class TopicTable(RulesModel):
    scope: str = ""
    terms: Strings = ()
    weak: Strings = ()
    yields_to_subject: bool = False


class VariantTable(RulesModel):
    winter: str | None = None
    spring: str | None = None
    default: Strings = ()


class QuestionWordsTable(RulesModel):
    today: Strings = ()
    can: Strings = ()
    after: Strings = ()
    repeat: Strings = ()
    winter: Strings = ()
    spring: Strings = ()
    stopwords: Strings = ()
    after_topic: str | None = None
    volunteer: Strings = ()
    volunteer_topic: str | None = None
    asks: Strings = ()
    follow_up: Strings = ()


class QuestionSettingsTable(RulesModel):
    listing: Strings = ()
    answer_confidence: float = 0.5
    max_cards: int = 3


class QuestionsFile(RulesModel):
    version: Literal[1]
    topics: dict[str, TopicTable] = Field(default_factory=dict)
    variants: dict[str, VariantTable] = Field(default_factory=dict)
    question: QuestionWordsTable = QuestionWordsTable()
    settings: QuestionSettingsTable = QuestionSettingsTable()


class ZoneTable(RulesModel):
    name: LocalText | None = None
    terms: Strings = ()


class OblastTable(RulesModel):
    name: LocalText | None = None
    #: The oblast's geographic centre, (latitude, longitude) degrees.
    centre: tuple[float, float] | None = None
    #: False: never the oblast a point is placed in (a city inside an oblast).
    by_point: bool = True
    zone: str | None = None
    also: Strings = ()
    terms: Strings = ()


class ZonesFile(RulesModel):
    version: Literal[1]
    zones: dict[str, ZoneTable] = Field(default_factory=dict)
    oblasts: dict[str, OblastTable] = Field(default_factory=dict)
