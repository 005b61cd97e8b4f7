"""What :meth:`KnowledgeBase.lookup <pipeline.knowledge.base.KnowledgeBase.lookup>`
found for one question: the cards, the crop and topic, and how sure it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pipeline.knowledge.model import Card, Region, Zone

__all__ = ["CropSource", "Lookup", "Reason"]

Reason = Literal[
    "answer",  # crop and topic (or a general topic) found, with a card
    "keyword",  # the crop or topic came from a pest or weed name
    "no_card_for_crop",  # the crop has no cards at all
    "no_card_for_topic",  # the crop has cards, but not on this topic
    "ambiguous_crop",  # the farm grows several crops and the question names none
    "no_crop",  # a crop topic, and nothing says which crop
    "no_topic",  # nothing says what is asked
]
CropSource = Literal["question", "keyword", "previous", "farm", "none"]


@dataclass(frozen=True, slots=True)
class Lookup:
    """What the knowledge base found for one question."""

    question: str
    #: Cards that answer, best first (empty when none fits).
    cards: tuple[Card, ...]
    #: The crop the question is about (what it named, even without cards).
    crop: str | None
    crop_source: CropSource
    topic: str | None
    zone: Zone | None
    region: Region | None
    confidence: float
    reason: Reason
    #: "sow_now": "can I sow X today?" — compare the farm's soil and date; "after":
    #: "що сіяти після кукурудзи?" — the crop is the predecessor, asked what follows.
    mode: Literal["answer", "sow_now", "after"] = "answer"
    #: "пшениця після соняшнику": the predecessor the question names with its crop.
    predecessor: str | None = None
    #: Card id -> indexes of the items the question named (a pest, a weed).
    items: dict[str, tuple[int, ...]] = field(default_factory=dict)
    area_ha: float | None = None
    temperature_c: float | None = None
    #: The calendar day the question names ("чи не рано 20 квітня"), as (month, day).
    day: tuple[int, int] | None = None
    field_words: tuple[str, ...] = ()
    #: Cards near the question when none answers it (never another crop's card).
    nearest: tuple[Card, ...] = ()
    #: The farm's crops with cards, when the question could be about any of them.
    candidates: tuple[str, ...] = ()
    #: Topics the crop has cards for (to say what is known instead).
    known_topics: tuple[str, ...] = ()
    threshold: float = 0.5

    @property
    def confident(self) -> bool:
        return bool(self.cards) and self.confidence >= self.threshold
