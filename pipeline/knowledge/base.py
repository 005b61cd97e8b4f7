"""The knowledge base: cards loaded once, an FTS5 index over them, and
:meth:`KnowledgeBase.lookup`, which finds the cards that answer a question and says
how sure it is.

The crop comes from the question, else from a pest or weed only one crop's cards
name ("вовчок" is sunflower's), else from the conversation (the previous question's
crop), else from the farm when it grows one crop with a card for the topic. A crop
without cards is never answered with another crop's card: the lookup returns no
card, says why, and the composer is honest about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pipeline.farm.dictionary import DictionaryEntry, NameRules
from pipeline.farm.words.dates import DateWords
from pipeline.farm.words.units import Units
from pipeline.grammar import Grammar
from pipeline.knowledge.index import CardIndex, crop_tag, documents, topic_tag
from pipeline.knowledge.loader import KNOWLEDGE_DIR, KnowledgeData, load_knowledge
from pipeline.knowledge.lookup import CropSource, Lookup, Reason
from pipeline.knowledge.model import Card, Region, Text, Zone
from pipeline.knowledge.reader import QuestionReader, Reading, ReadOnce
from pipeline.knowledge.reading_kinds import SOWING_TOPICS, answer_mode, names_a_subject, told

__all__ = ["KnowledgeBase", "Lookup", "Reason"]

#: How much each way of knowing the crop or the topic is trusted.
_CROP_TRUST: dict[CropSource, float] = {
    "question": 1.0,
    "keyword": 0.85,
    "previous": 0.85,
    "farm": 0.8,
    "none": 1.0,
}
_TOPIC_STRONG, _TOPIC_KEYWORD, _TOPIC_WEAK = 1.0, 0.85, 0.75
_TOPIC_FROM_INDEX = 0.4


def _name(entry: DictionaryEntry) -> Text:
    """A shared crop's name: its display, and its first English synonym in English."""
    english = next((name for name in entry.synonyms if name.isascii()), entry.display)
    return Text(entry.display, english[:1].upper() + english[1:])


@dataclass(slots=True)
class _Crops:
    ids: list[str]
    source: CropSource
    named: str | None = None


#: Topics whose own words name a subject (a nutrient: «цинк», «фосфор»).
SUBJECT_TOPICS = frozenset({"nutrition"})


class KnowledgeBase:
    """Loaded once (``Rulebook.load``) and passed to whoever answers questions."""

    def __init__(
        self,
        data: KnowledgeData,
        grammar: Grammar,
        units: Units,
        crops: Sequence[DictionaryEntry],
        names: NameRules,
        dates: DateWords | None = None,
    ) -> None:
        self.data = data
        self.reader = QuestionReader(data, grammar, units, crops, names, dates)
        #: Routing reads a question, the lookup reuses that reading (not read twice).
        self.read = ReadOnce(self.reader)
        self.cards = {card.id: card for card in data.cards}
        self.crop_names: dict[str, Text] = {entry.canonical_id: _name(entry) for entry in crops}
        for crop in data.crops.values():
            self.crop_names[crop.id] = crop.name
        self._topic_order = {name: n for n, name in enumerate(data.topics)}
        labels: dict[str, list[str]] = {}
        for label, refs in self.reader.keyword_refs.items():
            for ref in refs:
                labels.setdefault(ref.card, []).append(label)
        synonyms = {entry.canonical_id: entry.names for entry in crops}
        self.index = CardIndex(
            documents(
                data.cards,
                synonyms,
                {name: spec.terms + spec.weak for name, spec in data.topics.items()},
                labels,
            )
        )
        self._by_crop_topic = {(card.crop, card.topic): card for card in data.cards}

    @classmethod
    def load(
        cls,
        grammar: Grammar,
        units: Units,
        crops: Sequence[DictionaryEntry],
        names: NameRules,
        directory: Path = KNOWLEDGE_DIR,
        dates: DateWords | None = None,
    ) -> KnowledgeBase:
        data = load_knowledge(
            directory, units=units.known, crop_ids=[entry.canonical_id for entry in crops]
        )
        return cls(data, grammar, units, crops, names, dates)

    # ------------------------------------------------------------------ crops

    def expand(self, crop: str, qualifier: str | None = None) -> list[str]:
        """The crops with cards a crop name stands for: a generic name gives its
        winter or spring form, or its default form(s)."""
        variant = self.data.variants.get(crop)
        if variant is None:
            return [crop]
        if qualifier == "winter":
            return [variant.winter]
        if qualifier == "spring":
            return [variant.spring]
        return list(variant.default)

    def _named_crops(self, reading: Reading) -> list[str]:
        found: list[str] = []
        for crop, position in reading.crops:
            for cid in self.expand(crop, self.reader.qualifier_near(reading, position)):
                if cid not in found:
                    found.append(cid)
        return found

    def _keyword_crops(self, reading: Reading) -> list[str]:
        """Crops whose cards name the pest or weed the question names, in card order."""
        found: dict[str, None] = {}
        for label in reading.keywords:
            for ref in self.reader.keyword_refs[label]:
                crop = self.cards[ref.card].crop
                if crop is not None:
                    found[crop] = None
        return list(found)

    def _crops(
        self,
        reading: Reading,
        topic: str | None,
        farm_crops: Iterable[str],
        previous_crop: str | None,
    ) -> tuple[_Crops, tuple[str, ...]]:
        named = self._named_crops(reading)
        if not named and reading.after_crops and topic == self.data.words.after_topic:
            # "що сіяти після кукурудзи": the predecessor's rotation card answers.
            named = self.expand(reading.after_crops[0])
        if named:
            return _Crops(named, "question", named[0]), ()
        by_keyword = self._keyword_crops(reading)
        if len(by_keyword) == 1:
            return _Crops(by_keyword, "keyword", by_keyword[0]), ()
        if previous_crop:
            previous = self.expand(previous_crop)
            return _Crops(previous, "previous", previous[0]), ()
        farm = self._farm_crops(farm_crops, topic)
        if by_keyword:
            # A pest of several crops: the farm's crop among them, else ask which.
            mine = [crop for crop in by_keyword if crop in farm]
            if len(mine) == 1:
                return _Crops(mine, "farm", mine[0]), ()
            return _Crops([], "none"), tuple(mine or by_keyword)
        if len(farm) == 1:
            return _Crops(farm, "farm", farm[0]), ()
        return _Crops([], "none"), tuple(farm)

    def _farm_crops(self, farm_crops: Iterable[str], topic: str | None) -> list[str]:
        """The farm's crops with cards, those with a card on ``topic`` if any has one."""
        farm: list[str] = []
        for crop in farm_crops:
            farm += [c for c in self.expand(crop) if c in self.data.crops and c not in farm]
        if topic is not None:
            farm = [c for c in farm if (c, topic) in self._by_crop_topic] or farm
        return farm

    # ------------------------------------------------------------------ topics

    def _topic_scores(self, reading: Reading) -> tuple[dict[str, float], set[str]]:
        """Topic scores from the topic words, plus what pest or weed names and a
        predecessor ("після соняшнику") say; and which topics were named outright."""
        scores = dict(reading.topic_scores)
        strong = set(reading.strong_topics)
        subjects: set[str] = set()
        for label in dict.fromkeys(reading.keywords):
            for topic in {self.cards[ref.card].topic for ref in self.reader.keyword_refs[label]}:
                scores[topic] = scores.get(topic, 0.0) + 1.0
                strong.add(topic)
                subjects.add(topic)
        if subjects:
            topics = self.data.topics
            for topic in [t for t in scores if topics[t].yields_to_subject]:
                if topic not in subjects:
                    del scores[topic]
                    strong.discard(topic)
        words = self.data.words
        for named, marked in (
            (reading.after_crops, words.after_topic),
            (reading.volunteer_crops, words.volunteer_topic),
        ):
            if named and marked is not None:
                scores[marked] = scores.get(marked, 0.0) + 2.0
                strong.add(marked)
        return scores, strong

    def _topic_scores_or(
        self, reading: Reading, previous_topic: str | None
    ) -> tuple[dict[str, float], set[str]]:
        """The question's topics, else the conversation's for a follow-up that names
        a crop, pest or field and no topic ("а для сої?")."""
        scores, strong = self._topic_scores(reading)
        if scores or previous_topic is None or not names_a_subject(reading):
            return scores, strong
        if previous_topic not in self.data.topics:
            return scores, strong
        return {previous_topic: 1.0}, {previous_topic}

    def _topics(
        self, scores: dict[str, float], strong: set[str], *, crop_known: bool
    ) -> tuple[list[str], float]:
        """The topic asked about first, then any other topic of the same scope named
        outright ("норма висіву і глибина"), and how sure the reading is of them.

        On a tie a topic that needs no crop wins when nothing says which crop: a
        general answer beats a question back."""
        ranked = sorted(scores, key=lambda t: (-scores[t], self._topic_order[t]))
        if not ranked:
            return [], 0.0
        top = [t for t in ranked if scores[t] == scores[ranked[0]]]
        general = [t for t in top if self.data.topics[t].scope == "general"]
        primary = general[0] if general and not crop_known else ranked[0]
        if primary not in strong:
            return [primary], _TOPIC_WEAK
        return [primary, *self._more(primary, ranked, strong)], _TOPIC_STRONG

    def _more(self, primary: str, ranked: list[str], strong: set[str]) -> list[str]:
        """Other crop topics named outright next to a crop topic asked first."""
        scope = self.data.topics[primary].scope
        # "чи можна сіяти пшеницю після соняшнику": the sowing words ask the rotation.
        asked = SOWING_TOPICS if primary == self.data.words.after_topic else ()
        return [
            t
            for t in ranked
            if t != primary
            and t in strong
            and t not in asked
            and self.data.topics[t].scope == scope
            and scope == "crop"
        ]

    # ------------------------------------------------------------------ routing

    def claim(self, text: str) -> int:
        """How surely ``text`` is an agronomy question, for the classifier's probe:
        2 for a topic named outright together with what it is about (a crop, a pest
        or weed, or a topic that needs no crop), 1 for such a topic alone ("а норма
        висіву?"), 0 otherwise."""
        reading = self.read(text)
        _, strong = self._topic_scores(reading)
        subject = bool(reading.crops or reading.keywords or reading.after_crops)
        if not strong:
            # "а для сої?": a crop and no topic goes on with the conversation's topic,
            # an agronomy question only in that conversation (half a trigger).
            return 1 if subject and reading.follow_up else 0
        topics = self.data.topics
        if subject:
            return 2
        if any(topics[t].scope == "general" for t in strong):
            # "полив 20 мм на полі 3", "spraying tomorrow on field 2": an operation
            # told with its field, day or amount is a record, unless something asks.
            return 0 if told(reading) and not (reading.asks or reading.can) else 2
        return 1

    def names_subject(self, text: str) -> int:
        """1 when ``text`` names an agronomy subject: a crop, a pest, weed or disease,
        or a nutrient (the classifier's ``subject`` probe: a message naming one that no
        rule understood goes to the advisor, never to the operations menu)."""
        reading = self.read(text)
        if reading.crops or reading.keywords:
            return 1
        _, strong = self._topic_scores(reading)
        return int(bool(strong & SUBJECT_TOPICS))

    # ------------------------------------------------------------------ lookup

    def _place(
        self, reading: Reading, farm_region: str | None
    ) -> tuple[Region | None, Zone | None]:
        region_id, zone = reading.region, reading.zone
        if region_id is None and zone is None and farm_region:
            if farm_region in self.data.regions:
                region_id = farm_region
            else:
                region_id, zone = self.reader.place(farm_region)
        region = self.data.regions.get(region_id) if region_id else None
        if zone is None and region is not None:
            zone = region.zone
        return region, zone

    def _search(
        self, reading: Reading, crops: Sequence[str], topics: Sequence[str], *, general: bool
    ) -> list[Card]:
        tags = [crop_tag(c) for c in crops] + [topic_tag(t) for t in topics] + reading.keywords
        allowed = [*crops, "general"] if general else list(crops)
        hits = self.index.search(
            tags, reading.words, crops=allowed, topics=list(topics) or None, limit=8
        )
        return [self.cards[hit.card] for hit in hits]

    def lookup(
        self,
        question: str,
        *,
        farm_crops: Iterable[str] = (),
        farm_region: str | None = None,
        previous_crop: str | None = None,
        previous_topic: str | None = None,
    ) -> Lookup:
        """The cards that answer ``question``, with the farm's crops and region and
        the previous question's crop and topic as fall-backs for what the question
        leaves out ("а для сої?" asks the previous topic of soybean)."""
        reading = self.read(question)
        region, zone = self._place(reading, farm_region)
        scores, strong = self._topic_scores_or(reading, previous_topic)
        first, _ = self._topics(scores, strong, crop_known=True)
        crops, candidates = self._crops(
            reading, first[0] if first else None, farm_crops, previous_crop
        )
        topics, topic_trust = self._topics(scores, strong, crop_known=bool(crops.ids))
        topic = topics[0] if topics else None
        if topic is not None and reading.keywords and not reading.topic_scores:
            # The topic came from a pest or weed name alone ("вовчок"): a guess.
            topic_trust = _TOPIC_KEYWORD
        start = Lookup(
            question=question,
            cards=(),
            crop=crops.named,
            crop_source=crops.source,
            topic=topic,
            zone=zone,
            region=region,
            confidence=0.0,
            reason="no_topic",
            mode=answer_mode(reading, topic, self.data.words.after_topic),
            predecessor=reading.after_crops[0] if reading.crops and reading.after_crops else None,
            items=self.reader.items_named(reading),
            area_ha=reading.area_ha,
            temperature_c=reading.temperature_c,
            day=reading.day,
            field_words=reading.field_words,
            candidates=candidates,
            threshold=self.data.answer_confidence,
        )
        with_cards = [c for c in crops.ids if c in self.data.crops]
        if topic is None:
            return self._without_topic(start, reading, with_cards)
        if self.data.topics[topic].scope == "general":
            cards = self._search(reading, [], [topic], general=True)[:1]
            if not cards:
                return replace(start, reason="no_card_for_topic")
            trust = topic_trust * (_CROP_TRUST[crops.source] if crops.ids else 1.0)
            return replace(start, cards=tuple(cards), confidence=trust, reason="answer")
        return self._crop_answer(start, reading, crops, topics, topic_trust, with_cards)

    def _without_topic(self, start: Lookup, reading: Reading, with_cards: Sequence[str]) -> Lookup:
        """No topic: the card nearest the question's own words, as a guess."""
        # Only the question's own words may pull a card near: the crop's tag
        # alone would rank every card of that crop alike.
        hits = self.index.search(
            reading.keywords, reading.words, crops=[*with_cards, "general"], limit=1
        )
        nearest = [self.cards[hit.card] for hit in hits]
        return replace(
            start,
            confidence=_TOPIC_FROM_INDEX if nearest else 0.0,
            nearest=tuple(nearest),
            known_topics=self._known(with_cards),
        )

    def _crop_answer(
        self,
        start: Lookup,
        reading: Reading,
        crops: _Crops,
        topics: Sequence[str],
        topic_trust: float,
        with_cards: list[str],
    ) -> Lookup:
        """A topic of a crop: that crop's cards on it, or why there are none."""
        if not crops.ids:
            return replace(start, reason="ambiguous_crop" if start.candidates else "no_crop")
        if not with_cards:
            general = [t for t in topics if self.data.topics[t].scope == "general"]
            nearest = self._search(reading, [], general, general=True)[:1] if general else []
            return replace(start, reason="no_card_for_crop", nearest=tuple(nearest))
        crop_topics = [t for t in topics if self.data.topics[t].scope == "crop"]
        found = self._search(reading, with_cards, crop_topics, general=False)
        cards = [card for card in found if card.topic in crop_topics][: self.data.max_cards]
        if not any(card.topic == start.topic for card in cards):
            # Never answer a secondary topic when the one asked first has no card.
            return replace(start, reason="no_card_for_topic", known_topics=self._known(with_cards))
        keyword_only = crops.source == "keyword" or topic_trust == _TOPIC_KEYWORD
        return replace(
            start,
            cards=tuple(self._order(cards, with_cards)),
            items=self.reader.items_named(reading, cards),
            confidence=topic_trust * _CROP_TRUST[crops.source],
            reason="keyword" if keyword_only else "answer",
        )

    def _order(self, cards: list[Card], crops: Sequence[str]) -> list[Card]:
        """Cards in the order the crops were named (the index ranks within that)."""
        rank = {crop: n for n, crop in enumerate(crops)}
        return sorted(cards, key=lambda card: rank.get(card.crop or "", len(rank)))

    def _known(self, crops: Sequence[str]) -> tuple[str, ...]:
        return tuple(
            topic
            for topic in self.data.listing
            if any((crop, topic) in self._by_crop_topic for crop in crops)
        )

    def close(self) -> None:
        self.index.close()
