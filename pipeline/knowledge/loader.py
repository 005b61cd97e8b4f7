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

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pipeline.knowledge.model import (
    ALL,
    DATE_UNIT,
    ZONES,
    Card,
    CropInfo,
    Item,
    Region,
    Source,
    Text,
    TopicSpec,
    Value,
    Variant,
    Zone,
    date_key,
)

__all__ = ["KNOWLEDGE_DIR", "KnowledgeData", "QuestionWords", "load_knowledge"]

KNOWLEDGE_DIR = Path(__file__).resolve().parent.parent / "rules" / "knowledge"
_DATE_RE = re.compile(r"^(\d{2})-(\d{2})$")
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_GENERAL = "general"


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


class _Problems:
    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.found.append(f"{where}: {what}")


def _read(path: Path) -> Mapping[str, Any]:
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    if data.get("version") != 1:
        raise ValueError(f"{path.name}: version must be 1")
    return data


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _text(raw: Any, where: str, problems: _Problems) -> Text | None:
    if not isinstance(raw, Mapping):
        problems.add(where, "needs uk and en text")
        return None
    uk, en = str(raw.get("uk", "")).strip(), str(raw.get("en", "")).strip()
    if not uk or not en:
        problems.add(where, f"text missing in {'uk' if not uk else 'en'}")
        return None
    return Text(uk, en)


# ----------------------------------------------------------------------------- values


def _date(raw: Any, where: str, problems: _Problems) -> float | None:
    match = _DATE_RE.match(str(raw))
    if match is None:
        problems.add(where, f"date {raw!r} is not MM-DD")
        return None
    month, day = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS_IN_MONTH[month - 1]:
        problems.add(where, f"date {raw!r} does not exist")
        return None
    return date_key(month, day)


def _number(raw: Any, unit: str, where: str, problems: _Problems) -> float | None:
    if unit == DATE_UNIT:
        return _date(raw, where, problems)
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        problems.add(where, f"{raw!r} is not a number")
        return None
    return float(raw)


def _span(raw: Any, unit: str, where: str, problems: _Problems) -> tuple[float, float] | None:
    parts = raw if isinstance(raw, list) else [raw]
    if len(parts) not in (1, 2):
        problems.add(where, "a range is [low, high] or one number")
        return None
    numbers = [_number(part, unit, where, problems) for part in parts]
    if any(number is None for number in numbers):
        return None
    low, high = cast(float, numbers[0]), cast(float, numbers[-1])
    if low > high:
        problems.add(where, f"range not ordered: {parts[0]} > {parts[-1]}")
        return None
    return low, high


def _value(raw: Any, where: str, units: frozenset[str], problems: _Problems) -> Value | None:
    if not isinstance(raw, Mapping) or not raw.get("key") or not raw.get("unit"):
        problems.add(where, "a value needs a key and a unit")
        return None
    key, unit = str(raw["key"]), str(raw["unit"])
    where = f"{where} value {key!r}"
    if unit != DATE_UNIT and unit not in units:
        problems.add(where, f"unknown unit {unit!r} (add it to [units] of operations.toml)")
        return None
    zone_keys = [name for name in raw if name not in ("key", "unit", "bound")]
    unknown = [name for name in zone_keys if name != ALL and name not in ZONES]
    if unknown:
        problems.add(where, f"unknown zone(s) {unknown}; zones are {list(ZONES)} or 'all'")
        return None
    if ALL in zone_keys and len(zone_keys) > 1:
        problems.add(where, "'all' and zones together")
        return None
    if ALL not in zone_keys and sorted(zone_keys) != sorted(ZONES):
        problems.add(where, f"needs 'all' or every zone {list(ZONES)}")
        return None
    bound = raw.get("bound")
    if bound not in (None, "min", "max"):
        problems.add(where, f"bound must be 'min' or 'max', not {bound!r}")
        return None
    spans: dict[str, tuple[float, float]] = {}
    for name in zone_keys:
        span = _span(raw[name], unit, f"{where} [{name}]", problems)
        if span is None:
            return None
        if bound is not None and span[0] != span[1]:
            problems.add(where, "a bounded value is one number")
            return None
        spans[name] = span
    return Value(key, unit, spans, bound)


def _values(raw: Any, where: str, units: frozenset[str], problems: _Problems) -> tuple[Value, ...]:
    found = (_value(item, where, units, problems) for item in (raw or []))
    return tuple(value for value in found if value is not None)


# ------------------------------------------------------------------------------ cards


def _item(
    raw: Mapping[str, Any], where: str, units: frozenset[str], crops: frozenset[str], p: _Problems
) -> Item | None:
    name = _text(raw.get("name"), f"{where} name", p)
    if name is None:
        return None
    where = f"{where} item {name.en!r}"
    note = _text(raw["note"], f"{where} note", p) if "note" in raw else None
    window = _text(raw["window"], f"{where} window", p) if "window" in raw else None
    actives_raw = raw.get("actives", {})
    uk, en = _strings(actives_raw.get("uk")), _strings(actives_raw.get("en"))
    if len(uk) != len(en):
        p.add(where, "actives need the same list in uk and en")
    crop = raw.get("crop")
    if crop is not None and crop not in crops:
        p.add(where, f"unknown crop {crop!r}")
    return Item(
        name=name,
        terms=_strings(raw.get("terms")),
        values=_values(raw.get("values"), where, units, p),
        note=note,
        window=window,
        actives=tuple(Text(a, b) for a, b in zip(uk, en, strict=False)),
        crop=str(crop) if crop is not None else None,
    )


def _card(
    raw: Mapping[str, Any],
    *,
    crop: str | None,
    number: int,
    where: str,
    data: _Context,
) -> Card | None:
    p = data.problems
    topic = str(raw.get("topic", ""))
    where = f"{where} card {number} ({topic or '?'})"
    spec = data.topics.get(topic)
    if spec is None:
        p.add(where, f"unknown topic {topic!r}")
        return None
    if (spec.scope == "crop") != (crop is not None):
        p.add(where, f"topic {topic!r} is a {spec.scope} topic: wrong file")
        return None
    source_ids = _strings(raw.get("sources"))
    if not source_ids:
        p.add(where, "names no source")
    missing = [sid for sid in source_ids if sid not in data.sources]
    if missing:
        p.add(where, f"unknown source(s) {missing}")
    text = _text(raw.get("text"), f"{where} text", p)
    items = tuple(
        item
        for item in (_item(it, where, data.units, data.crop_ids, p) for it in raw.get("items", []))
        if item is not None
    )
    if crop is not None and any(item.crop is not None for item in items):
        p.add(where, "only a general card's items name a crop")
    # Checked even when the card is already wrong, so every problem is reported.
    values = _values(raw.get("values"), where, data.units, p)
    if text is None or not source_ids or missing:
        return None
    slug = (crop or _GENERAL).removeprefix("crop:")
    return Card(
        id=f"{slug}.{topic}",
        crop=crop,
        topic=topic,
        sources=tuple(data.sources[sid] for sid in source_ids),
        text=text,
        values=values,
        items=items,
        keywords=_strings(raw.get("keywords")),
    )


@dataclass(frozen=True, slots=True)
class _Context:
    units: frozenset[str]
    crop_ids: frozenset[str]
    topics: Mapping[str, TopicSpec]
    sources: Mapping[str, Source]
    problems: _Problems


# ---------------------------------------------------------------------------- tables


def _sources(raw: Mapping[str, Any], p: _Problems) -> dict[str, Source]:
    found: dict[str, Source] = {}
    for sid, spec in raw.get("sources", {}).items():
        where = f"sources.toml [{sid}]"
        institution = _text(spec.get("institution"), f"{where} institution", p)
        document = _text(spec.get("document"), f"{where} document", p)
        url = spec.get("url")
        year = spec.get("year")
        if year is None and not (spec.get("undated") and url):
            p.add(where, "needs a year (or `undated = true` and a url)")
        elif year is not None and (not isinstance(year, int) or not 1900 <= year <= 2100):
            p.add(where, f"year {year!r} is not a year")
        if institution is not None and document is not None:
            found[sid] = Source(sid, institution, document, year, str(url) if url else None)
    return found


def _topics(raw: Mapping[str, Any], p: _Problems) -> dict[str, TopicSpec]:
    found: dict[str, TopicSpec] = {}
    for name, spec in raw.get("topics", {}).items():
        scope = spec.get("scope")
        terms = _strings(spec.get("terms"))
        if scope not in ("crop", "general") or not terms:
            p.add(f"questions.toml [topics.{name}]", "needs scope crop|general and terms")
            continue
        found[name] = TopicSpec(name, scope, terms, _strings(spec.get("weak")))
    return found


def _zones(
    raw: Mapping[str, Any], p: _Problems
) -> tuple[dict[Zone, Text], dict[Zone, tuple[str, ...]]]:
    names: dict[Zone, Text] = {}
    terms: dict[Zone, tuple[str, ...]] = {}
    for zone in ZONES:
        spec = raw.get("zones", {}).get(zone)
        text = _text(spec.get("name") if spec else None, f"zones.toml [zones.{zone}]", p)
        if text is not None:
            names[zone] = text
            terms[zone] = _strings(spec.get("terms") if spec else None)
    extra = set(raw.get("zones", {})) - set(ZONES)
    if extra:
        p.add("zones.toml", f"unknown zone(s) {sorted(extra)}")
    return names, terms


def _regions(
    raw: Mapping[str, Any], p: _Problems
) -> tuple[dict[str, Region], dict[str, tuple[str, ...]]]:
    regions: dict[str, Region] = {}
    terms: dict[str, tuple[str, ...]] = {}
    for rid, spec in raw.get("oblasts", {}).items():
        where = f"zones.toml [oblasts.{rid}]"
        name = _text(spec.get("name"), where, p)
        zone = spec.get("zone")
        also = _strings(spec.get("also"))
        bad = [z for z in (zone, *also) if z not in ZONES]
        if bad or zone in also:
            p.add(where, f"zone/also must be among {list(ZONES)} and differ")
            continue
        if name is not None:
            regions[rid] = Region(rid, name, cast(Zone, zone), cast(tuple[Zone, ...], also))
            terms[rid] = _strings(spec.get("terms"))
    return regions, terms


def _variants(raw: Mapping[str, Any], crop_ids: frozenset[str], p: _Problems) -> dict[str, Variant]:
    found: dict[str, Variant] = {}
    for crop, spec in raw.get("variants", {}).items():
        named = [crop, spec.get("winter"), spec.get("spring"), *_strings(spec.get("default"))]
        unknown = [cid for cid in named if cid not in crop_ids]
        if unknown or not spec.get("default"):
            p.add(f"questions.toml [variants.{crop}]", f"unknown crop(s) {unknown} or no default")
            continue
        found[crop] = Variant(
            crop, str(spec["winter"]), str(spec["spring"]), _strings(spec["default"])
        )
    return found


def _crop_info(
    raw: Mapping[str, Any], where: str, crop_ids: frozenset[str], p: _Problems
) -> CropInfo | None:
    spec = raw.get("crop", {})
    crop = spec.get("id")
    name = _text(spec.get("name"), f"{where} [crop] name", p)
    if crop not in crop_ids:
        p.add(where, f"crop id {crop!r} is not in rules/crops.toml")
        return None
    if spec.get("season") not in ("spring", "winter"):
        p.add(where, "season must be spring or winter")
        return None
    return CropInfo(str(crop), name, spec["season"]) if name is not None else None


def load_knowledge(
    directory: Path = KNOWLEDGE_DIR,
    *,
    units: Iterable[str],
    crop_ids: Iterable[str],
) -> KnowledgeData:
    """Every file of ``directory``, checked against the unit table and the shared crops."""
    p = _Problems()
    known_units, known_crops = frozenset(units), frozenset(crop_ids)
    questions = _read(directory / "questions.toml")
    zones_raw = _read(directory / "zones.toml")
    sources = _sources(_read(directory / "sources.toml"), p)
    topics = _topics(questions, p)
    zones, zone_terms = _zones(zones_raw, p)
    regions, region_terms = _regions(zones_raw, p)
    ctx = _Context(known_units, known_crops, topics, sources, p)
    crops: dict[str, CropInfo] = {}
    cards: list[Card] = []
    for path in sorted((directory / "cards").glob("*.toml")):
        raw = _read(path)
        crop: str | None = None
        if "crop" in raw:
            info = _crop_info(raw, path.name, known_crops, p)
            if info is None:
                continue
            if info.id in crops:
                p.add(path.name, f"crop {info.id} already has a file")
            crops[info.id] = info
            crop = info.id
        for number, card_raw in enumerate(raw.get("cards", []), start=1):
            card = _card(card_raw, crop=crop, number=number, where=path.name, data=ctx)
            if card is not None:
                cards.append(card)
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            p.add(card.id, "two cards for one crop and topic")
        seen.add(card.id)
    words = questions.get("question", {})
    settings = questions.get("settings", {})
    variants = _variants(questions, known_crops, p)
    listing = _strings(settings.get("listing")) or tuple(topics)
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
            today=_strings(words.get("today")),
            can=_strings(words.get("can")),
            after=_strings(words.get("after")),
            winter=_strings(words.get("winter")),
            spring=_strings(words.get("spring")),
            stopwords=_strings(words.get("stopwords")),
            after_topic=after_topic,
            volunteer=_strings(words.get("volunteer")),
            volunteer_topic=volunteer_topic,
        ),
        answer_confidence=float(settings.get("answer_confidence", 0.5)),
        max_cards=int(settings.get("max_cards", 3)),
        listing=listing,
    )
