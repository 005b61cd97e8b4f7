"""Reads the knowledge base from ``pipeline/rules/knowledge/`` and checks it.

Layout (docs/knowledge.md says how to add or correct a card):

``sources.toml``    the documents cards cite, by id
``zones.toml``      the three agro-climatic zones and every oblast's zone
``questions.toml``  topics and the words questions are read with
``cards/*.toml``    one file per crop (``[crop]`` + ``[[cards]]``) and ``general.toml``

Every problem found is collected and raised in one :class:`ValueError`, so a
reviewer sees them all at once: a card without a source or a language, an unknown
unit, a range whose low is above its high, a zone that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from pipeline.knowledge import parse
from pipeline.knowledge.files import (
    CardFile,
    CardTable,
    CropTable,
    ItemTable,
    QuestionsFile,
    RotationTable,
    SourcesFile,
    ZonesFile,
)
from pipeline.knowledge.model import (
    ZONES,
    Card,
    CropInfo,
    Item,
    Region,
    Rotation,
    Source,
    Text,
    TopicSpec,
    Variant,
    Zone,
)
from pipeline.rules import RULES_DIR, schema

__all__ = ["KNOWLEDGE_DIR", "KnowledgeData", "QuestionWords", "load_knowledge"]

KNOWLEDGE_DIR = RULES_DIR / "knowledge"
_GENERAL = "general"
#: The topic whose cards carry a ``[cards.rotation]`` table, and only they.
_ROTATION = "rotation"


@dataclass(frozen=True, slots=True)
class QuestionWords:
    today: tuple[str, ...]
    can: tuple[str, ...]
    after: tuple[str, ...]
    winter: tuple[str, ...]
    spring: tuple[str, ...]
    stopwords: tuple[str, ...]
    #: The topic of a question that names a crop after "після/after".
    after_topic: str | None = None
    #: Words that make the next crop a weed ("падалиця соняшнику"), and its topic.
    volunteer: tuple[str, ...] = ()
    volunteer_topic: str | None = None
    #: Words that ask ("коли", "how", "порадь"): a general topic told next to a field,
    #: a day or an amount without one of these is an operation, not a question.
    asks: tuple[str, ...] = ()
    #: Openers of a follow-up ("а для сої?"): the previous question's topic goes on.
    follow_up: tuple[str, ...] = ()
    #: "пшениця по пшениці": the repeated crop after one of these is the predecessor.
    repeat: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KnowledgeData:
    """Everything the files say, checked."""

    #: Crops that have cards, by crop id.
    crops: Mapping[str, CropInfo]
    cards: tuple[Card, ...]
    sources: Mapping[str, Source]
    zones: Mapping[Zone, Text]
    zone_terms: Mapping[Zone, tuple[str, ...]]
    regions: Mapping[str, Region]
    region_terms: Mapping[str, tuple[str, ...]]
    #: In the order of the file: on a tie the first topic wins.
    topics: Mapping[str, TopicSpec]
    variants: Mapping[str, Variant]
    words: QuestionWords
    answer_confidence: float
    max_cards: int
    #: Topics in the order a reply lists them ("I know about: ...").
    listing: tuple[str, ...] = ()


# ------------------------------------------------------------------------------ cards


def _item(
    raw: ItemTable,
    where: str,
    units: frozenset[str],
    crops: frozenset[str],
    p: parse.Problems,
) -> Item | None:
    name = parse.text(raw.name, f"{where} name", p)
    if name is None:
        return None
    where = f"{where} item {name.en!r}"
    note = parse.text(raw.note, f"{where} note", p) if raw.note is not None else None
    window = parse.text(raw.window, f"{where} window", p) if raw.window is not None else None
    uk, en = raw.actives.uk, raw.actives.en
    if len(uk) != len(en):
        p.add(where, "actives need the same list in uk and en")
    if raw.crop is not None and raw.crop not in crops:
        p.add(where, f"unknown crop {raw.crop!r}")
    return Item(
        name=name,
        terms=raw.terms,
        values=parse.values(raw.values, where, units, p),
        note=note,
        window=window,
        actives=tuple(Text(a, b) for a, b in zip(uk, en, strict=False)),
        crop=raw.crop,
    )


def _rotation(
    raw: RotationTable | None, topic: str, where: str, crops: frozenset[str], p: parse.Problems
) -> Rotation | None:
    """A rotation card's predecessors and followers: known crop ids, texts in both
    languages; no other card has the table."""
    if (raw is not None) != (topic == _ROTATION):
        p.add(where, "a rotation card needs [cards.rotation], no other card has one")
        return None
    if raw is None:
        return None
    unknown = [c for c in (*raw.good, *raw.bad, *raw.next, *raw.avoid) if c not in crops]
    if unknown:
        p.add(where, f"rotation names unknown crop(s) {unknown}")
    if set(raw.good) & set(raw.bad) or set(raw.next) & set(raw.avoid):
        p.add(where, "a crop is both good and bad in the rotation")
    texts = [
        parse.text(getattr(raw, key), f"{where} rotation {key}", p)
        for key in ("good_text", "bad_text", "next_text", "avoid_text")
    ]
    if unknown or any(text is None for text in texts):
        return None
    good, bad, after, avoid = (cast(Text, text) for text in texts)
    return Rotation(raw.good, raw.bad, good, bad, raw.next, raw.avoid, after, avoid)


def _rotation_conflicts(cards: Iterable[Card], p: parse.Problems) -> None:
    """Two rotation cards must agree: a good predecessor of X never lists X as what
    not to sow after it, a poor one never lists X as a good follower."""
    rotations = {c.crop: c.rotation for c in cards if c.crop and c.rotation is not None}
    for crop, mine in rotations.items():
        for other, theirs in rotations.items():
            if other in mine.good and crop in theirs.avoid:
                p.add(f"{crop} rotation", f"{other} is a good predecessor, yet avoids {crop}")
            if other in mine.bad and crop in theirs.next:
                p.add(f"{crop} rotation", f"{other} is a poor predecessor, yet suits {crop}")


def _card(
    raw: CardTable,
    *,
    crop: str | None,
    number: int,
    where: str,
    data: _Context,
) -> Card | None:
    p = data.problems
    topic = raw.topic
    where = f"{where} card {number} ({topic or '?'})"
    spec = data.topics.get(topic)
    if spec is None:
        p.add(where, f"unknown topic {topic!r}")
        return None
    if (spec.scope == "crop") != (crop is not None):
        p.add(where, f"topic {topic!r} is a {spec.scope} topic: wrong file")
        return None
    sources_known = _sources_known(raw.sources, where, data)
    text = parse.text(raw.text, f"{where} text", p)
    items = tuple(
        item
        for item in (_item(it, where, data.units, data.crop_ids, p) for it in raw.items)
        if item is not None
    )
    if crop is not None and any(item.crop is not None for item in items):
        p.add(where, "only a general card's items name a crop")
    # Checked even when the card is already wrong, so every problem is reported.
    values = parse.values(raw.values, where, data.units, p)
    rotation = _rotation(raw.rotation, topic, where, data.crop_ids, p)
    if text is None or not sources_known:
        return None
    slug = (crop or _GENERAL).removeprefix("crop:")
    return Card(
        id=f"{slug}.{topic}",
        crop=crop,
        topic=topic,
        sources=tuple(data.sources[sid] for sid in raw.sources),
        text=text,
        values=values,
        items=items,
        keywords=raw.keywords,
        rotation=rotation,
    )


def _sources_known(source_ids: tuple[str, ...], where: str, data: _Context) -> bool:
    """A card names at least one source, and only sources of sources.toml."""
    if not source_ids:
        data.problems.add(where, "names no source")
    missing = [sid for sid in source_ids if sid not in data.sources]
    if missing:
        data.problems.add(where, f"unknown source(s) {missing}")
    return bool(source_ids) and not missing


@dataclass(frozen=True, slots=True)
class _Context:
    units: frozenset[str]
    crop_ids: frozenset[str]
    topics: Mapping[str, TopicSpec]
    sources: Mapping[str, Source]
    problems: parse.Problems


# ---------------------------------------------------------------------------- tables


def _sources(raw: Mapping[str, Any], p: parse.Problems) -> dict[str, Source]:
    found: dict[str, Source] = {}
    for sid, spec in raw.get("sources", {}).items():
        where = f"sources.toml [{sid}]"
        institution = parse.text(spec.get("institution"), f"{where} institution", p)
        document = parse.text(spec.get("document"), f"{where} document", p)
        url = spec.get("url")
        year = spec.get("year")
        if year is None and not (spec.get("undated") and url):
            p.add(where, "needs a year (or `undated = true` and a url)")
        elif year is not None and (not isinstance(year, int) or not 1900 <= year <= 2100):
            p.add(where, f"year {year!r} is not a year")
        if institution is not None and document is not None:
            found[sid] = Source(sid, institution, document, year, str(url) if url else None)
    return found


def _topics(raw: Mapping[str, Any], p: parse.Problems) -> dict[str, TopicSpec]:
    found: dict[str, TopicSpec] = {}
    for name, spec in raw.get("topics", {}).items():
        scope = spec.get("scope")
        terms = parse.strings(spec.get("terms"))
        if scope not in ("crop", "general") or not terms:
            p.add(f"questions.toml [topics.{name}]", "needs scope crop|general and terms")
            continue
        found[name] = TopicSpec(
            name,
            scope,
            terms,
            parse.strings(spec.get("weak")),
            bool(spec.get("yields_to_subject", False)),
        )
    return found


def _zones(
    raw: Mapping[str, Any], p: parse.Problems
) -> tuple[dict[Zone, Text], dict[Zone, tuple[str, ...]]]:
    names: dict[Zone, Text] = {}
    terms: dict[Zone, tuple[str, ...]] = {}
    for zone in ZONES:
        spec = raw.get("zones", {}).get(zone)
        text = parse.text(spec.get("name") if spec else None, f"zones.toml [zones.{zone}]", p)
        if text is not None:
            names[zone] = text
            terms[zone] = parse.strings(spec.get("terms") if spec else None)
    extra = set(raw.get("zones", {})) - set(ZONES)
    if extra:
        p.add("zones.toml", f"unknown zone(s) {sorted(extra)}")
    return names, terms


def _regions(
    raw: Mapping[str, Any], p: parse.Problems
) -> tuple[dict[str, Region], dict[str, tuple[str, ...]]]:
    regions: dict[str, Region] = {}
    terms: dict[str, tuple[str, ...]] = {}
    for rid, spec in raw.get("oblasts", {}).items():
        where = f"zones.toml [oblasts.{rid}]"
        name = parse.text(spec.get("name"), where, p)
        zone = spec.get("zone")
        also = parse.strings(spec.get("also"))
        bad = [z for z in (zone, *also) if z not in ZONES]
        if bad or zone in also:
            p.add(where, f"zone/also must be among {list(ZONES)} and differ")
            continue
        if name is not None:
            centre = spec.get("centre")
            regions[rid] = Region(
                rid,
                name,
                cast(Zone, zone),
                cast(tuple[Zone, ...], also),
                centre=(float(centre[0]), float(centre[1])) if centre else None,
                by_point=bool(spec.get("by_point", True)),
            )
            terms[rid] = parse.strings(spec.get("terms"))
    return regions, terms


def _variants(
    raw: Mapping[str, Any], crop_ids: frozenset[str], p: parse.Problems
) -> dict[str, Variant]:
    found: dict[str, Variant] = {}
    for crop, spec in raw.get("variants", {}).items():
        named = [crop, spec.get("winter"), spec.get("spring"), *parse.strings(spec.get("default"))]
        unknown = [cid for cid in named if cid not in crop_ids]
        if unknown or not spec.get("default"):
            p.add(f"questions.toml [variants.{crop}]", f"unknown crop(s) {unknown} or no default")
            continue
        found[crop] = Variant(
            crop, str(spec["winter"]), str(spec["spring"]), parse.strings(spec["default"])
        )
    return found


def _crop_info(
    spec: CropTable, where: str, crop_ids: frozenset[str], p: parse.Problems
) -> CropInfo | None:
    name = parse.text(spec.name, f"{where} [crop] name", p)
    if spec.id not in crop_ids:
        p.add(where, f"crop id {spec.id!r} is not in rules/crops.toml")
        return None
    if spec.season not in ("spring", "winter"):
        p.add(where, "season must be spring or winter")
        return None
    season = cast(Literal["spring", "winter"], spec.season)  # checked just above
    return CropInfo(spec.id, name, season) if name is not None else None


def _card_files(directory: Path, ctx: _Context) -> tuple[dict[str, CropInfo], list[Card]]:
    """Every file of ``cards/``: its crop (if any) and its cards, checked."""
    p = ctx.problems
    crops: dict[str, CropInfo] = {}
    cards: list[Card] = []
    for path in sorted((directory / "cards").glob("*.toml")):
        raw = schema.load(path, CardFile)
        crop: str | None = None
        if raw.crop is not None:
            info = _crop_info(raw.crop, path.name, ctx.crop_ids, p)
            if info is None:
                continue
            if info.id in crops:
                p.add(path.name, f"crop {info.id} already has a file")
            crops[info.id] = info
            crop = info.id
        for number, card_raw in enumerate(raw.cards, start=1):
            card = _card(card_raw, crop=crop, number=number, where=path.name, data=ctx)
            if card is not None:
                cards.append(card)
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            p.add(card.id, "two cards for one crop and topic")
        seen.add(card.id)
    _rotation_conflicts(cards, p)
    return crops, cards


def load_knowledge(
    directory: Path = KNOWLEDGE_DIR,
    *,
    units: Iterable[str],
    crop_ids: Iterable[str],
) -> KnowledgeData:
    """Every file of ``directory``, checked against the unit table and the shared crops."""
    p = parse.Problems()
    known_units, known_crops = frozenset(units), frozenset(crop_ids)
    questions = parse.read(directory / "questions.toml", QuestionsFile)
    zones_raw = parse.read(directory / "zones.toml", ZonesFile)
    sources = _sources(parse.read(directory / "sources.toml", SourcesFile), p)
    topics = _topics(questions, p)
    zones, zone_terms = _zones(zones_raw, p)
    regions, region_terms = _regions(zones_raw, p)
    crops, cards = _card_files(directory, _Context(known_units, known_crops, topics, sources, p))
    words = questions.get("question", {})
    settings = questions.get("settings", {})
    variants = _variants(questions, known_crops, p)
    listing = parse.strings(settings.get("listing")) or tuple(topics)
    after_topic = words.get("after_topic")
    volunteer_topic = words.get("volunteer_topic")
    for key, named in (("after_topic", after_topic), ("volunteer_topic", volunteer_topic)):
        if named is not None and named not in topics:
            p.add(f"questions.toml [question] {key}", f"unknown topic {named!r}")
    if sorted(listing) != sorted(topics):
        p.add("questions.toml [settings] listing", "must name every topic once")
    if p.found:
        raise ValueError("knowledge base:\n  " + "\n  ".join(p.found))
    return KnowledgeData(
        crops=crops,
        cards=tuple(cards),
        sources=sources,
        zones=zones,
        zone_terms=zone_terms,
        regions=regions,
        region_terms=region_terms,
        topics=topics,
        variants=variants,
        words=QuestionWords(
            today=parse.strings(words.get("today")),
            can=parse.strings(words.get("can")),
            after=parse.strings(words.get("after")),
            winter=parse.strings(words.get("winter")),
            spring=parse.strings(words.get("spring")),
            stopwords=parse.strings(words.get("stopwords")),
            after_topic=after_topic,
            volunteer=parse.strings(words.get("volunteer")),
            volunteer_topic=volunteer_topic,
            asks=parse.strings(words.get("asks")),
            follow_up=parse.strings(words.get("follow_up")),
            repeat=parse.strings(words.get("repeat")),
        ),
        answer_confidence=float(settings.get("answer_confidence", 0.5)),
        max_cards=int(settings.get("max_cards", 3)),
        listing=listing,
    )
