"""The knowledge base as plain, frozen data: sources, values, items, cards, crops,
regions, topics. :mod:`pipeline.knowledge.loader` builds them from the TOML files
under ``pipeline/rules/knowledge/`` and checks them; nothing here reads a file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from pipeline.types import Language

__all__ = [
    "ALL",
    "DATE_UNIT",
    "ZONES",
    "Card",
    "CropInfo",
    "FarmFacts",
    "Item",
    "Region",
    "Rotation",
    "Scope",
    "Source",
    "Text",
    "TopicSpec",
    "Value",
    "Variant",
    "Zone",
    "date_key",
    "month_day",
]

Zone = Literal["polissia", "forest_steppe", "steppe"]
#: The three agro-climatic zones, north to south.
ZONES: tuple[Zone, ...] = ("polissia", "forest_steppe", "steppe")
#: A value that is the same in every zone.
ALL = "all"
#: Values in this unit are calendar days ("MM-DD"), kept as ``month * 100 + day``.
DATE_UNIT = "date"
Scope = Literal["crop", "general"]
Bound = Literal["min", "max"]


def date_key(month: int, day: int) -> float:
    """A calendar day as a number that sorts like the calendar (March 5 is 305)."""
    return float(month * 100 + day)


def month_day(key: float) -> tuple[int, int]:
    number = int(key)
    return number // 100, number % 100


@dataclass(frozen=True, slots=True)
class Text:
    """One text in both catalog languages."""

    uk: str
    en: str

    def get(self, lang: Language) -> str:
        return self.en if lang == "en" else self.uk


@dataclass(frozen=True, slots=True)
class Source:
    id: str
    institution: Text
    document: Text
    #: None only for an undated web page, which then has a url.
    year: int | None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Value:
    """A named quantity of a card: a range (low, high) per zone, or one for all.

    ``bound`` marks a one-sided value ("up to 14 %", "at least 8 °C"); its range is
    then a single number (low == high).
    """

    key: str
    unit: str
    spans: Mapping[str, tuple[float, float]]
    bound: Bound | None = None

    @property
    def zoned(self) -> bool:
        return ALL not in self.spans

    def span(self, zone: str | None) -> tuple[float, float] | None:
        """The range for ``zone`` (the common one when the value is not zoned)."""
        if not self.zoned:
            return self.spans[ALL]
        return self.spans.get(zone) if zone is not None else None

    def envelope(self) -> tuple[float, float]:
        """From the lowest low to the highest high over every zone."""
        lows = [low for low, _ in self.spans.values()]
        highs = [high for _, high in self.spans.values()]
        return min(lows), max(highs)


@dataclass(frozen=True, slots=True)
class Item:
    """One weed, pest, disease (or one crop's line of a general card)."""

    name: Text
    terms: tuple[str, ...] = ()
    values: tuple[Value, ...] = ()
    note: Text | None = None
    window: Text | None = None
    actives: tuple[Text, ...] = ()
    #: The crop a general card's item is about ("crop:maize"); None otherwise.
    crop: str | None = None


@dataclass(frozen=True, slots=True)
class Rotation:
    """A crop's place in the rotation: its predecessors and what follows it.

    The crop ids let a question about a pair ("пшениця після соняшнику") be judged;
    the texts are what a farmer reads (they may name what is no crop: bare fallow,
    perennial grasses)."""

    #: Good and poor predecessors of the crop (crop ids of ``rules/crops.toml``).
    good: tuple[str, ...]
    bad: tuple[str, ...]
    good_text: Text
    bad_text: Text
    #: What to sow after the crop, and what not to.
    next: tuple[str, ...]
    avoid: tuple[str, ...]
    next_text: Text
    avoid_text: Text


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    #: The crop id of ``rules/crops.toml``; None for a general card.
    crop: str | None
    topic: str
    sources: tuple[Source, ...]
    text: Text
    values: tuple[Value, ...] = ()
    items: tuple[Item, ...] = ()
    keywords: tuple[str, ...] = ()
    #: Only on a rotation card.
    rotation: Rotation | None = None

    @property
    def source(self) -> Source:
        return self.sources[0]

    def value(self, key: str) -> Value | None:
        return next((value for value in self.values if value.key == key), None)


@dataclass(frozen=True, slots=True)
class CropInfo:
    id: str
    name: Text
    season: Literal["spring", "winter"]


@dataclass(frozen=True, slots=True)
class Region:
    id: str
    name: Text
    zone: Zone
    #: Zones a part of the oblast lies in besides its main one.
    also: tuple[Zone, ...] = ()
    #: The oblast's geographic centre (latitude, longitude), zones.toml's ``centre``.
    centre: tuple[float, float] | None = None
    #: False: a point is never placed in it (a city inside an oblast).
    by_point: bool = True


@dataclass(frozen=True, slots=True)
class TopicSpec:
    name: str
    scope: Scope
    terms: tuple[str, ...]
    weak: tuple[str, ...] = ()
    #: Yields to the topic a named pest, weed or disease points at: "попелиця на
    #: пшениці, коли обприскувати" asks the aphid's threshold, not spraying weather.
    yields_to_subject: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    """A crop name with a winter and a spring form (``crop:barley``)."""

    crop: str
    winter: str
    spring: str
    default: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FarmFacts:
    """What the farm knows that a card does not, as plain values."""

    today: date | None = None
    #: The latest soil temperature reading, °C.
    soil_temp_c: float | None = None
    #: Field name -> area in hectares.
    fields: Mapping[str, float] = field(default_factory=dict)
