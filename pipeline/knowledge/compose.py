"""The reply to a knowledge question, composed from the cards without an LLM.

Values come from the card (the zone's value when the zone is known, else every zone
and one question asking for the region), the farm's own facts are passed in as plain
values (today's date, the latest soil temperature, the fields' areas), and one short
line names the source. A novice also gets the why; an expert only the numbers. When
the lookup found nothing sure, the reply says so, gives the nearest thing known (never
another crop's card) and offers a human agronomist.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.farm.dictionary import DictionaryEntry, Vocabulary
from pipeline.knowledge.base import KnowledgeBase, Lookup
from pipeline.knowledge.glossary import glossary
from pipeline.knowledge.model import Card, FarmFacts, Item, Source, Value
from pipeline.knowledge.render import ValueText
from pipeline.knowledge.rotation import rotation_lines, verdict
from pipeline.knowledge.sow_now import sow_now_section
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import Expertise
from pipeline.text import tokenize
from pipeline.types import Language

__all__ = ["Answer", "Composer", "FarmFacts"]

#: Values scaled by a field's area ("скільки насіння на поле 3?").
_RATES = ("rate", "rate_kg", "rate_t")
#: Totals of this many units read better in the next unit up.
_UPGRADE = {"kg": ("t", 1000.0), "k_seeds": ("M_seeds", 1000.0)}


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    #: The reply says Stepan does not know: offer the human agronomist.
    unsure: bool
    cards: tuple[str, ...] = ()
    #: The one thing the reply asks back, if any.
    asks: Literal["region", "crop"] | None = None
    #: One pest, weed or disease answered: its card's others, (card id, item index,
    #: short name), to be asked next with a tap.
    others: tuple[tuple[str, int, str], ...] = ()


def _others(card: Card, lookup: Lookup, lang: Language) -> list[tuple[int, str]]:
    """The card's items the question did not name, when it named some: (index, the
    name without its parenthesis, "Дротяники" of "Дротяники (личинки коваликів)")."""
    named = lookup.items.get(card.id)
    if not named or card.crop is None:
        return []
    return [
        (n, re.sub(r"\s*\([^)]*\)", "", item.name.get(lang)))
        for n, item in enumerate(card.items)
        if n not in named
    ]


def _lower(name: str) -> str:
    """A crop name inside a sentence: "соя, цукровий буряк"."""
    return name[:1].lower() + name[1:]


class Composer:
    def __init__(self, kb: KnowledgeBase, catalog: Catalog, vocabulary: Vocabulary) -> None:
        self.kb = kb
        self.catalog = catalog
        self.vocabulary = vocabulary
        self._rotations = {c.crop: c.rotation for c in kb.data.cards if c.crop and c.rotation}

    def compose(
        self,
        lookup: Lookup,
        *,
        lang: Language,
        level: Expertise = "intermediate",
        farm_facts: FarmFacts | None = None,
    ) -> Answer:
        facts = farm_facts or FarmFacts()
        texts = Texts(self.catalog, lang)
        out = ValueText(texts)
        if lookup.reason in ("no_crop", "ambiguous_crop"):
            return self._ask_crop(lookup, out)
        if not lookup.cards:
            return self._unsure(lookup, out, level)
        lines: list[str] = []
        if not lookup.confident:
            lines.append(out.text("knowledge.unsure_intro"))
        asks_region = self._sections(lookup, out, facts, level, lines)
        if level == "novice":
            # What the answer's terms mean, before the question back and the source.
            terms = glossary(texts, lookup.cards, "\n".join(lines))
            lines += [*terms, ""] if terms else []
        if asks_region:
            lines.append(out.text("knowledge.ask_region"))
        lines += self._sources(lookup.cards, out)
        if not lookup.confident:
            lines.append(out.text("knowledge.unsure.offer"))
        return Answer(
            text="\n".join(lines).strip(),
            unsure=not lookup.confident,
            cards=tuple(card.id for card in lookup.cards),
            asks="region" if asks_region else None,
            others=tuple(
                (card.id, n, name)
                for card in lookup.cards
                for n, name in _others(card, lookup, out.lang)
            ),
        )

    def _sections(
        self,
        lookup: Lookup,
        out: ValueText,
        facts: FarmFacts,
        level: Expertise,
        lines: list[str],
    ) -> bool:
        """Each card's section onto ``lines``; True when one needs the region asked."""
        asks_region = False
        for card in lookup.cards:
            if lookup.mode == "sow_now" and card.value("window") is not None:
                section, ask = sow_now_section(card, lookup, out, facts, self.kb)
                section += self._why(card, out, "expert" if level != "novice" else level)
            else:
                section, ask = self._card(card, lookup, out, facts, level)
            lines += [*section, ""]
            asks_region = asks_region or ask
        return asks_region

    # ------------------------------------------------------------------ pieces

    def _crop(self, crop: str, lang: Language) -> str:
        name = self.kb.crop_names.get(crop)
        return name.get(lang) if name is not None else crop

    def _heading(self, card: Card, lookup: Lookup, out: ValueText, placed: bool) -> str:
        topic = out.text(f"knowledge.topic.{card.topic}")
        if card.crop is not None:
            crop = self._crop(card.crop, out.lang)
        else:
            crop, topic = topic[:1].upper() + topic[1:], ""
            if lookup.crop is not None:
                topic = self._crop(lookup.crop, out.lang).lower()
        if placed and lookup.zone is not None:
            place = out.zone(lookup.zone)
            if lookup.region is not None:
                region = lookup.region.name.get(out.lang)
                place = out.text("knowledge.place_region", region=region, zone=place)
            return out.text("knowledge.heading_place", crop=crop, topic=topic, place=place)
        if not topic:
            return crop
        return out.text("knowledge.heading", crop=crop, topic=topic)

    def _value_lines(self, value: Value, lookup: Lookup, out: ValueText) -> tuple[list[str], bool]:
        """Lines for one value; True when it is zoned and the zone is unknown."""
        label = out.label(value.key)
        if not value.zoned:
            return [out.text("knowledge.bullet", label=label, value=out.value(value, None))], False
        if lookup.zone is not None:
            lines = [out.text("knowledge.bullet", label=label, value=out.value(value, lookup.zone))]
            for zone in lookup.region.also if lookup.region is not None else ():
                lines.append(
                    out.text("knowledge.also", zone=out.zone(zone), value=out.value(value, zone))
                )
            return lines, False
        lines = [out.text("knowledge.bullet_head", label=label)]
        for zone in self.kb.data.zones:
            lines.append(
                out.text("knowledge.zone_line", zone=out.zone(zone), value=out.value(value, zone))
            )
        return lines, True

    def _why(self, card: Card, out: ValueText, level: Expertise) -> list[str]:
        if level == "expert":
            return []
        text = card.text.get(out.lang)
        if level == "intermediate":
            text = text.split(". ")[0].rstrip(".") + "."
        return [out.text("knowledge.why", text=text)]

    def _card(
        self, card: Card, lookup: Lookup, out: ValueText, facts: FarmFacts, level: Expertise
    ) -> tuple[list[str], bool]:
        zoned = any(value.zoned for value in card.values)
        lines = [self._heading(card, lookup, out, placed=zoned)]
        asks = False
        for value in card.values:
            value_lines, unknown_zone = self._value_lines(value, lookup, out)
            lines += value_lines
            asks = asks or unknown_zone
        if card.rotation is not None:
            return self._rotation(card, lookup, out, level, lines), asks
        lines += self._items(card, lookup, out, level)
        lines += self._scaled(card, lookup, out, facts)
        lines += self._why(card, out, level)
        return lines, asks

    def _rotation(
        self, card: Card, lookup: Lookup, out: ValueText, level: Expertise, lines: list[str]
    ) -> list[str]:
        """A rotation card: the verdict on the pair asked about, then its lists."""
        heading = lines[0]
        if lookup.mode == "after" and card.crop is not None:
            crop = self._crop(card.crop, out.lang)
            heading = out.text("knowledge.rotation.as_predecessor", crop=crop)
        head: list[str] = []
        if lookup.predecessor is not None:
            before = (*self.kb.expand(lookup.predecessor), lookup.predecessor)
            head.append(verdict(card, before, self._rotations, self.kb.crop_names, out))
        body = rotation_lines(card, lookup, out, heading, lines[1:])
        return [*head, *body, *self._why(card, out, level)]

    # ------------------------------------------------------------------ items

    def _item_lines(
        self, item: Item, out: ValueText, level: Expertise, *, named: bool = True
    ) -> list[str]:
        lines = [out.text("knowledge.item", name=item.name.get(out.lang))] if named else []
        for value in item.values:
            text = out.value(value, None) or ""
            if value.key == "threshold":
                lines.append(out.text("knowledge.item_threshold", value=text))
            else:
                lines.append(
                    out.text("knowledge.item_values", label=out.label(value.key), value=text)
                )
        # The note explains; an expert reads the numbers, the window and the substances.
        if item.note is not None and level != "expert":
            lines.append(out.text("knowledge.item_note", text=item.note.get(out.lang)))
        if item.window is not None:
            lines.append(out.text("knowledge.item_window", text=item.window.get(out.lang)))
        if item.actives:
            names = [active.get(out.lang) for active in item.actives]
            lines.append(out.text("knowledge.item_actives", list=out.join(names)))
        return lines

    def _items(self, card: Card, lookup: Lookup, out: ValueText, level: Expertise) -> list[str]:
        if not card.items:
            return []
        if card.crop is None and any(item.crop for item in card.items):
            return self._crop_items(card, lookup, out, level)
        named = lookup.items.get(card.id)
        chosen = [card.items[i] for i in named] if named else list(card.items)
        lines = [line for item in chosen for line in self._item_lines(item, out, level)]
        others = [name for _, name in _others(card, lookup, out.lang)]
        if others:
            # One pest asked about: that one, and the others' names to ask next.
            lines.append(out.text("knowledge.also_items", list=out.join(others)))
        return lines

    def _crop_items(
        self, card: Card, lookup: Lookup, out: ValueText, level: Expertise
    ) -> list[str]:
        """A general card's line for the crop asked about, or every crop's in short."""
        if lookup.crop is not None:
            mine = [item for item in card.items if item.crop == lookup.crop]
            if not mine:
                crop = self._crop(lookup.crop, out.lang)
                return [out.text("knowledge.no_crop_item", crop=crop)]
            lines = [out.text("knowledge.crop_item", crop=self._crop(lookup.crop, out.lang))]
            for item in mine:
                lines += self._item_lines(item, out, level, named=False)
            return lines
        rows: list[str] = []
        for item in card.items:
            first = item.values[0] if item.values else None
            if first is None:
                return [out.text("knowledge.ask_crop_item")]
            value = out.value(first, None) or ""
            rows.append(out.text("knowledge.sub_line", label=item.name.get(out.lang), value=value))
        if not rows:
            return []
        head = out.text("knowledge.bullet_head", label=out.label(card.items[0].values[0].key))
        return [head, *rows]

    # ------------------------------------------------------------------ area

    def _field(self, lookup: Lookup, facts: FarmFacts) -> tuple[str, float] | str | None:
        """The field the question names: (name, area), its words when unknown, or None."""
        if not facts.fields and not lookup.field_words:
            return None
        entries = [
            DictionaryEntry("field", f"field:{n}", name) for n, name in enumerate(facts.fields)
        ]
        dictionary = self.vocabulary.dictionary(entries)
        candidates = [lookup.field_words[:k] for k in range(len(lookup.field_words), 0, -1)]
        tokens = tokenize(lookup.question)
        for size in (3, 2, 1):
            for start in range(len(tokens) - size + 1):
                window = tokens[start : start + size]
                if not any(any(ch.isdigit() for ch in word) for word in window):
                    candidates.append(window)
        for words in candidates:
            entry = dictionary.match_words("field", words, fuzzy=False)
            if entry is not None and entry.kind == "field":
                return entry.display, facts.fields[entry.display]
        if lookup.field_words:
            return " ".join(lookup.field_words[1:2]) or lookup.field_words[0]
        return None

    def _scaled(self, card: Card, lookup: Lookup, out: ValueText, facts: FarmFacts) -> list[str]:
        rates = [v for v in card.values if v.key in _RATES and v.unit.endswith("/ha")]
        if not rates:
            return []
        found = self._field(lookup, facts)
        if isinstance(found, str) and lookup.area_ha is None:
            return [out.text("knowledge.field_unknown", field=found)]
        if isinstance(found, tuple):
            name, area = found
            place = out.text("knowledge.scaled_place_field", field=name, area=out.number(area))
        elif lookup.area_ha is not None:
            area = lookup.area_ha
            place = out.text("knowledge.scaled_place_area", area=out.number(area))
        else:
            return []
        lines: list[str] = []
        for value in rates:
            rate_unit = value.unit.removesuffix("/ha")
            if not value.zoned or lookup.zone is not None:
                span = value.span(lookup.zone)
                if span is None:
                    continue
                total = self._total(span, area, rate_unit, out)
                rate = out.span(*span, value.unit)
                lines.append(out.text("knowledge.scaled", place=place, value=total, rate=rate))
                continue
            lines.append(out.text("knowledge.scaled_head", place=place))
            for zone, span in value.spans.items():
                total = self._total(span, area, rate_unit, out)
                lines.append(out.text("knowledge.scaled_zone", zone=out.zone(zone), value=total))
        return lines

    @staticmethod
    def _total(span: tuple[float, float], area: float, unit: str, out: ValueText) -> str:
        low, high = span[0] * area, span[1] * area
        if unit in _UPGRADE and high >= _UPGRADE[unit][1]:
            unit, factor = _UPGRADE[unit]
            low, high = low / factor, high / factor
        return out.span(low, high, unit)

    # ------------------------------------------------------------------ not sure

    def source_lines(self, cards: tuple[Card, ...], lang: Language) -> list[str]:
        """The short "Source: …" line(s) of ``cards``, as a composed answer ends."""
        return self._sources(cards, ValueText(Texts(self.catalog, lang)))

    def _sources(self, cards: tuple[Card, ...], out: ValueText) -> list[str]:
        """A short line per source (the title cut to about 48 characters and the
        year): the full reference is one tap away (``full_sources``)."""
        lines: list[str] = []
        for source in dict.fromkeys(card.source for card in cards):
            lines.append(
                out.text(
                    "knowledge.source_short",
                    title=short_title(source.document.get(out.lang)),
                    year=_year(source, out),
                )
            )
        return lines

    def full_sources(self, source_ids: Sequence[str], lang: Language) -> list[str]:
        """The whole reference of each source (document, institution, year, link);
        unknown ids are skipped."""
        out = ValueText(Texts(self.catalog, lang))
        lines: list[str] = []
        for source_id in source_ids:
            source = self.kb.data.sources.get(source_id)
            if source is None:
                continue
            lines.append(
                out.text(
                    "knowledge.source",
                    document=source.document.get(lang),
                    institution=source.institution.get(lang),
                    year=_year(source, out),
                )
            )
            if source.url:
                lines.append(out.text("knowledge.source_url", url=source.url))
        return lines

    def _ask_crop(self, lookup: Lookup, out: ValueText) -> Answer:
        if lookup.candidates:
            crops = out.join([_lower(self._crop(c, out.lang)) for c in lookup.candidates])
            text = out.text("knowledge.unsure.ask_crop_of", crops=crops)
        else:
            known = out.join([_lower(c.name.get(out.lang)) for c in self.kb.data.crops.values()])
            text = "\n".join(
                [
                    out.text("knowledge.unsure.ask_crop"),
                    out.text("knowledge.unsure.crops_known", crops=known),
                ]
            )
        return Answer(text=text, unsure=False, asks="crop")

    def _unsure(self, lookup: Lookup, out: ValueText, level: Expertise) -> Answer:
        crop = self._crop(lookup.crop, out.lang) if lookup.crop is not None else None
        lines: list[str] = []
        if lookup.reason == "no_card_for_crop" and crop is not None:
            lines.append(out.text("knowledge.unsure.no_crop_card", crop=crop))
        elif lookup.reason == "no_card_for_topic" and lookup.topic:
            topic = out.text(f"knowledge.topic.{lookup.topic}")
            if crop is not None and self.kb.data.topics[lookup.topic].scope == "crop":
                lines.append(out.text("knowledge.unsure.no_topic_card", crop=crop, topic=topic))
            else:
                lines.append(out.text("knowledge.unsure.no_topic_general", topic=topic))
        else:
            lines.append(out.text("knowledge.unsure.no_topic"))
        for card in lookup.nearest:
            key = "general_only" if lookup.reason == "no_card_for_crop" else "nearest"
            lines.append(out.text(f"knowledge.unsure.{key}"))
            section, _ = self._card(card, lookup, out, FarmFacts(), "expert")
            lines += section
        if lookup.known_topics and crop is not None and lookup.crop in self.kb.data.crops:
            topics = out.join([out.text(f"knowledge.topic.{t}") for t in lookup.known_topics])
            lines.append(out.text("knowledge.unsure.known", crop=crop, topics=topics))
        elif lookup.reason in ("no_topic", "no_card_for_crop"):
            lines.append(out.text("knowledge.unsure.known_general"))
        lines.append(out.text("knowledge.unsure.offer"))
        return Answer(text="\n".join(lines), unsure=True)


#: A source line's title, at most (the line stays near 80 characters).
TITLE_LIMIT = 48


def short_title(document: str, limit: int = TITLE_LIMIT) -> str:
    """``document`` cut at a word before ``limit`` characters, with «…» kept closed."""
    if len(document) <= limit:
        return document
    cut = document[: limit - 2].rsplit(" ", 1)[0].rstrip(" ,.;:—-")
    return f"{cut}…»" if cut.startswith("«") and "»" not in cut else f"{cut}…"


def _year(source: Source, out: ValueText) -> str:
    return str(source.year) if source.year is not None else out.text("knowledge.undated")
