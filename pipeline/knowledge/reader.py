"""Reads what a question names: crops, topic, region, a pest or weed, an area, a
temperature, "today". Every word list is data (``rules/crops.toml``,
``rules/knowledge/*.toml``, the unit table) matched through the one grammar of
:mod:`pipeline.grammar`, so Ukrainian, Russian, surzhyk and English forms,
inflections and one typo need no listing.

The passes run in an order that keeps specific phrases whole: numbers with their
units, then multi-word pest and weed names ("гірчиця польова" is a weed, not the
crop), then crops, single-word pest names, places and topics, and the small words
(today, can, after). They run twice: first without typo tolerance, then with it on
the words still free, so a word that is exactly one thing is never taken for a typo
of another ("бур'яни" are weeds, not a misspelt "буряки"). What is left, minus
stopwords, goes to the full-text index.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.farm.dictionary import DictionaryEntry, NameRules
from pipeline.farm.words.dates import DateWords
from pipeline.farm.words.units import Units
from pipeline.grammar import Grammar, TermSet, is_phrase
from pipeline.knowledge.loader import KnowledgeData
from pipeline.knowledge.model import Card, Zone
from pipeline.text import is_number, stem, tokenize

__all__ = ["KeywordRef", "QuestionReader", "Reading"]

#: A weak topic word counts this much; a strong term 1, a phrase 2.
_WEAK = 0.5
_PHRASE = 2
#: How far (in words) a winter/spring qualifier or "after" may stand from a crop.
_QUALIFIER_REACH = 2
#: Words after a field noun that may name the field ("поле 3", "на полі Північне").
_FIELD_WORDS = 2
_MIN_QUERY_WORD = 3


@dataclass(frozen=True, slots=True)
class KeywordRef:
    """A card item a keyword names: card id and the item's index in it."""

    card: str
    item: int


@dataclass(slots=True)
class Reading:
    """What one question says, before any card is looked up."""

    tokens: tuple[str, ...]
    #: Crops named as the subject, in order (generic names still generic).
    crops: list[tuple[str, int]] = field(default_factory=list)
    #: Crops named after "після/after": the predecessor, not the subject.
    after_crops: list[str] = field(default_factory=list)
    #: Crops named as a weed ("падалиця соняшнику"), not the subject.
    volunteer_crops: list[str] = field(default_factory=list)
    #: Topic scores; strong terms by length, weak ones by half.
    topic_scores: dict[str, float] = field(default_factory=dict)
    strong_topics: set[str] = field(default_factory=set)
    keywords: list[str] = field(default_factory=list)
    region: str | None = None
    zone: Zone | None = None
    today: bool = False
    can: bool = False
    #: A word that asks ("коли", "how", "порадь") or a question mark.
    asks: bool = False
    #: A weekday or a day relative to today ("в суботу", "вчора", "tomorrow").
    dated: bool = False
    #: Opens as a follow-up ("а для сої?", "and for maize?"): it goes on with the
    #: previous question.
    follow_up: bool = False
    winter_at: list[int] = field(default_factory=list)
    spring_at: list[int] = field(default_factory=list)
    area_ha: float | None = None
    temperature_c: float | None = None
    #: A calendar day the question names ("20 квітня"), as (month, day).
    day: tuple[int, int] | None = None
    field_words: tuple[str, ...] = ()
    words: list[str] = field(default_factory=list)


#: A length no word reaches: the strict pass tolerates no typo.
_NEVER = 1_000


@dataclass(frozen=True, slots=True)
class _Pass:
    """The vocabularies of one reading pass (without typos, or with them)."""

    keyword_phrases: TermSet
    crops: TermSet
    keyword_words: TermSet
    places: TermSet
    strong: TermSet
    weak: TermSet


def _number(token: str) -> float:
    return float(token.replace(",", "."))


def _month_then_day(dates: DateWords, reading: Reading, used: list[bool], i: int) -> bool:
    """ "May 3", "травня 3": a month name at ``i`` before the day; read when it is."""
    tokens = reading.tokens
    month = dates.months.label(tokens[i])
    if month is not None and 1 <= int(tokens[i + 1]) <= 31:
        reading.day = (int(month), int(tokens[i + 1]))
        used[i] = used[i + 1] = True
        return True
    return False


def _drop_season_crops(reading: Reading) -> None:
    """ "рапс озимий": the season word qualifies the crop named next to it; read as
    a crop of its own ("озимь", winter wheat) it would add a second crop."""
    qualifiers = set(reading.winter_at) | set(reading.spring_at)
    if len(reading.crops) > 1 and qualifiers:
        kept = [hit for hit in reading.crops if hit[1] not in qualifiers]
        reading.crops = kept or reading.crops


class QuestionReader:
    """Built once from the knowledge data and the shared vocabulary."""

    def __init__(
        self,
        data: KnowledgeData,
        grammar: Grammar,
        units: Units,
        crops: Sequence[DictionaryEntry],
        names: NameRules,
        dates: DateWords | None = None,
    ) -> None:
        self._units = units
        self._dates = dates
        self._names = names
        strict = replace(
            grammar,
            fuzzy_min_len=_NEVER,
            fuzzy_min_len_latin=_NEVER,
            fuzzy_min_prefix_len=_NEVER,
            fuzzy_min_stem_len=_NEVER,
        )
        self._grammars = (strict, grammar)
        words = data.words
        self._today = TermSet.flat(words.today, "today", grammar)
        self._can = TermSet.flat(words.can, "can", grammar)
        self._asks = TermSet.flat(words.asks, "asks", grammar)
        self._follow_up = TermSet.flat(words.follow_up, "follow_up", grammar)
        self._after = TermSet.flat(words.after, "after", grammar)
        self._repeat = TermSet.flat(words.repeat, "repeat", grammar)
        self._volunteer = TermSet.flat(words.volunteer, "volunteer", grammar)
        self._season = TermSet.labelled({"winter": words.winter, "spring": words.spring}, grammar)
        self._stop = TermSet.flat(words.stopwords, "stop", grammar)
        self.keyword_refs: dict[str, tuple[KeywordRef, ...]] = {}
        phrases, singles = self._keyword_terms(data)
        #: Each card's own item terms, by item index: the answering card's item is
        #: found even when another card's identical term took the word's label.
        self._item_terms = {
            card.id: TermSet.labelled(
                {str(n): item.terms for n, item in enumerate(card.items) if item.terms}, grammar
            )
            for card in data.cards
            if any(item.terms for item in card.items)
        }
        places: dict[str, Iterable[str]] = {f"zone:{z}": t for z, t in data.zone_terms.items()}
        places.update({f"region:{rid}": terms for rid, terms in data.region_terms.items()})
        crop_names = {entry.canonical_id: entry.names for entry in crops}
        #: Each vocabulary twice: without typos, then with them.
        self._passes = tuple(
            _Pass(
                keyword_phrases=TermSet.labelled(phrases, g),
                crops=TermSet.labelled(crop_names, g),
                keyword_words=TermSet.labelled(singles, g),
                places=TermSet.labelled(places, g),
                strong=TermSet.labelled({t: s.terms for t, s in data.topics.items()}, g),
                weak=TermSet.labelled({t: s.weak for t, s in data.topics.items()}, g),
            )
            for g in self._grammars
        )

    def _keyword_terms(
        self, data: KnowledgeData
    ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """One label per distinct term; a term several items share names them all."""
        refs: dict[str, list[KeywordRef]] = {}
        for card in data.cards:
            for number, item in enumerate(card.items):
                for term in item.terms:
                    refs.setdefault(term.strip(), []).append(KeywordRef(card.id, number))
            for term in card.keywords:
                refs.setdefault(term.strip(), []).append(KeywordRef(card.id, -1))
        phrases: dict[str, list[str]] = {}
        singles: dict[str, list[str]] = {}
        for number, (term, found) in enumerate(sorted(refs.items())):
            label = f"k{number}"
            self.keyword_refs[label] = tuple(found)
            (phrases if is_phrase(term) else singles)[label] = [term]
        return phrases, singles

    def items_named(
        self, reading: Reading, cards: Sequence[Card] = ()
    ) -> dict[str, tuple[int, ...]]:
        """Card id -> the items (pests, weeds, diseases) the question names: by the
        keywords read, and for the answering ``cards`` by their own items' terms."""
        items: dict[str, list[int]] = {}
        for label in reading.keywords:
            for ref in self.keyword_refs[label]:
                if ref.item >= 0 and ref.item not in items.setdefault(ref.card, []):
                    items[ref.card].append(ref.item)
        for card in cards if reading.keywords else ():
            terms = self._item_terms.get(card.id)
            if terms is not None and not items.get(card.id):
                free = [False] * len(reading.tokens)
                found = {int(label) for label, _, _ in self._scan(terms, reading.tokens, free)}
                items[card.id] = sorted(found)
        return {card: tuple(found) for card, found in items.items() if found}

    # ------------------------------------------------------------------ reading

    def read(self, text: str) -> Reading:
        tokens = tokenize(text)
        reading = Reading(tokens=tokens, asks="?" in text)
        used = [False] * len(tokens)
        self._numbers(reading, used)
        scores: dict[str, float] = {}
        crop_at: set[int] = set()
        for terms in self._passes:
            for label, _, _ in self._scan(terms.keyword_phrases, tokens, used):
                reading.keywords.append(label)
            self._crops_in(terms.crops, reading, used, crop_at)
            for label, _, _ in self._scan(terms.keyword_words, tokens, used):
                reading.keywords.append(label)
            self._places_in(terms.places, reading, used)
            self._topics_in(terms, reading, used, crop_at, scores)
        reading.topic_scores = scores
        self._field_in(reading, used)
        reading.crops.sort(key=lambda hit: hit[1])
        self._flags_in(reading)
        _drop_season_crops(reading)
        reading.words = self._leftovers(tokens, used)
        return reading

    def _crops_in(
        self, crops: TermSet, reading: Reading, used: list[bool], crop_at: set[int]
    ) -> None:
        """Crops named: as a weed ("падалиця соняшнику"), a predecessor ("після
        соняшнику") or the subject; ``crop_at`` gets the words they stand on."""
        tokens = reading.tokens
        for crop, start, length in self._scan(crops, tokens, used):
            crop_at.update(range(start, start + length))
            if start > 0 and tokens[start - 1] in self._volunteer:
                reading.volunteer_crops.append(crop)
            elif self._after_marker(tokens, start, crop_at) or (
                start > 0
                and tokens[start - 1] in self._repeat
                and any(named == crop for named, _ in reading.crops)
            ):
                reading.after_crops.append(crop)
            else:
                reading.crops.append((crop, start))

    def _topics_in(
        self,
        terms: _Pass,
        reading: Reading,
        used: list[bool],
        crop_at: set[int],
        scores: dict[str, float],
    ) -> None:
        """Topic words add to ``scores``: a strong term or phrase more than a weak word."""
        tokens = reading.tokens
        # A crop's word may also be a topic's ("скільки бульб": potato and rate).
        free = [u and i not in crop_at for i, u in enumerate(used)]
        for topic, _, length in self._scan(terms.strong, tokens, free):
            scores[topic] = scores.get(topic, 0.0) + min(length, _PHRASE)
            reading.strong_topics.add(topic)
        for topic, _, _ in self._scan(terms.weak, tokens, free):
            scores[topic] = scores.get(topic, 0.0) + _WEAK
        used[:] = [u or f for u, f in zip(used, free, strict=True)]

    @staticmethod
    def _scan(
        terms: TermSet, tokens: Sequence[str], used: list[bool]
    ) -> list[tuple[str, int, int]]:
        """Each term found on free words, left to right; its words become used.

        A phrase may reach over words an earlier pass took (a crop between "коли" and
        "сіяти"), but its own first and last words must be free; when they are not, the
        word alone is tried.
        """
        found: list[tuple[str, int, int]] = []
        i = 0
        while i < len(tokens):
            hit = None if used[i] else terms.match_at(tokens, i)
            if hit is not None and used[i + hit[1] - 1]:
                single = terms.label(tokens[i])
                hit = (single, 1) if single is not None else None
            if hit is None:
                i += 1
                continue
            label, length = hit
            for j in range(i, i + length):
                used[j] = True
            found.append((label, i, length))
            i += length
        return found

    def _after_marker(self, tokens: Sequence[str], start: int, crop_at: set[int]) -> bool:
        """ "після" just before the crop, with no other crop between ("після соняшнику
        пшеницю": wheat is the subject, sunflower the predecessor)."""
        for j in range(start - 1, max(0, start - _QUALIFIER_REACH) - 1, -1):
            if j in crop_at:
                return False
            if tokens[j] in self._after:
                return True
        return False

    def _numbers(self, reading: Reading, used: list[bool]) -> None:
        tokens = reading.tokens
        dates = self._dates
        for i, token in enumerate(tokens):
            if (
                i + 1 < len(tokens)
                and dates is not None
                and tokens[i + 1].isdigit()
                and _month_then_day(dates, reading, used, i)
            ):
                continue
            if used[i] or not is_number(token) or i + 1 >= len(tokens):
                continue
            self._number_before_word(reading, used, i)

    def _number_before_word(self, reading: Reading, used: list[bool], i: int) -> None:
        """The number at ``i`` with the word after it: an area, a day of a month or
        a temperature; what it is gets read and its words become used."""
        tokens = reading.tokens
        token = tokens[i]
        if tokens[i + 1] in self._units.area:
            reading.area_ha = _number(token)
            used[i] = used[i + 1] = True
            return
        month = self._dates.months.label(tokens[i + 1]) if self._dates else None
        if month is not None and token.isdigit() and 1 <= int(token) <= 31:
            reading.day = (int(month), int(token))
            used[i] = used[i + 1] = True
            return
        unit = self._units.reference_at(tokens, i + 1)
        if unit is not None and unit[0] == "C":
            negative = i > 0 and tokens[i - 1] in ("мінус", "минус", "minus")
            reading.temperature_c = -_number(token) if negative else _number(token)
            for j in range(i, i + 1 + unit[1]):
                used[j] = True

    def _field_in(self, reading: Reading, used: Sequence[bool]) -> None:
        """ "поле 3", "на полі Північне": a field noun no topic term took ("field
        capacity" is a soil's property)."""
        tokens = reading.tokens
        for i, token in enumerate(tokens):
            if not used[i] and self._names.is_generic("field", token):
                reading.field_words = tuple(tokens[i : i + 1 + _FIELD_WORDS])
                break

    def _places_in(self, places: TermSet, reading: Reading, used: list[bool]) -> None:
        for label, _, _ in self._scan(places, reading.tokens, used):
            kind, _, name = label.partition(":")
            if kind == "region" and reading.region is None:
                reading.region = name
            elif kind == "zone" and reading.zone is None:
                reading.zone = name  # type: ignore[assignment]

    def _flags_in(self, reading: Reading) -> None:
        tokens = reading.tokens
        reading.follow_up = self._follow_up.match_at(tokens, 0) is not None
        for i in range(len(tokens)):
            if self._today.match_at(tokens, i) is not None:
                reading.today = True
            if self._can.match_at(tokens, i) is not None:
                reading.can = True
            if self._asks.match_at(tokens, i) is not None:
                reading.asks = True
            dates = self._dates
            if dates is not None and (tokens[i] in dates.weekdays or tokens[i] in dates.relative):
                reading.dated = True
            season = self._season.match_at(tokens, i)
            if season is not None:
                (reading.winter_at if season[0] == "winter" else reading.spring_at).append(i)

    def _leftovers(self, tokens: Sequence[str], used: list[bool]) -> list[str]:
        words: list[str] = []
        for i, token in enumerate(tokens):
            if used[i] or is_number(token) or len(token) < _MIN_QUERY_WORD:
                continue
            if token in self._stop:
                continue
            words.append(stem(token))
        return words

    def qualifier_near(self, reading: Reading, position: int) -> str | None:
        """ "winter"/"spring" when such a word stands next to the crop at ``position``."""
        for name, places in (("winter", reading.winter_at), ("spring", reading.spring_at)):
            if any(abs(p - position) <= _QUALIFIER_REACH for p in places):
                return name
        return None

    def place(self, text: str) -> tuple[str | None, Zone | None]:
        """A region or zone named in free text (a farm's region as the farmer wrote it)."""
        reading = Reading(tokens=tokenize(text))
        used = [False] * len(reading.tokens)
        for terms in self._passes:
            self._places_in(terms.places, reading, used)
        return reading.region, reading.zone

    def topics_ranked(self, reading: Reading, order: Mapping[str, int]) -> list[str]:
        """Topics by score, then by their order in the data file."""
        return sorted(reading.topic_scores, key=lambda t: (-reading.topic_scores[t], order[t]))


class ReadOnce:
    """A message is read once: the classifier's probe reads it (``claim``), the
    advisor's lookup of the same text reuses that reading, and so does the lookup of
    the conversation's previous questions. A small bounded memo of the latest texts,
    owned by the knowledge base (not a module-level cache); readings are never
    changed after :meth:`QuestionReader.read` returns them."""

    def __init__(self, reader: QuestionReader, size: int = 256) -> None:
        self._reader = reader
        self._size = size
        self._latest: OrderedDict[str, Reading] = OrderedDict()
        self._lock = threading.Lock()  # the crew's tools may read from worker threads

    def __call__(self, text: str) -> Reading:
        with self._lock:
            reading = self._latest.get(text)
            if reading is not None:
                self._latest.move_to_end(text)
                return reading
        reading = self._reader.read(text)
        with self._lock:
            self._latest[text] = reading
            if len(self._latest) > self._size:
                self._latest.popitem(last=False)
        return reading
