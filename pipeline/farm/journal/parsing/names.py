"""Names in a message: fields ("поле 3", "на третьому полі", "на полях 2, 6 і 9",
"на Північному"), crops, and names the farm's dictionary does not know yet.

Ids are never invented: a name the dictionary does not know is reported as an
unknown term, with its id None.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.farm.dictionary import Dictionary, DictionaryEntry, Kind
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.text import is_number

__all__ = [
    "NameHit",
    "known_names",
    "name_result",
    "numbered_fields",
    "plain_word",
    "unknown_crops",
    "unknown_fields",
    "unknown_terms",
]

_MIN_ALPHA_NAME = 3
# Claimed tokens that may stand between a sowing verb and its crop.
_SKIPPED_BEFORE_CROP = frozenset({"date", "quantity", "marker", "hint"})
# "ІІ декада" is a number, not a brand (folded Cyrillic і looks like Latin i).
_ROMAN_DIGITS = frozenset("ivxlі")


@dataclass(frozen=True, slots=True)
class NameHit:
    kind: Kind
    pos: int
    phrase: str
    entry: DictionaryEntry | None
    unknown: str | None = None
    end: int = 0

    @property
    def key(self) -> str:
        if self.entry is not None:
            return self.entry.canonical_id
        return self.unknown or self.phrase


def numbered_fields(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[NameHit]:
    """ "поле 3", "полі №7", "3-є поле", "на третьому полі", "на полях 2, 6 і 9"."""
    hits: list[NameHit] = []
    names = rules.names
    for i, norm in enumerate(scan.norms):
        if not (scan.free(i) and names.is_generic("field", norm)):
            continue
        found = _numbers_after(scan, rules, i) or _number_before(scan, rules, i)
        for number, start, end in found:
            hits.append(_numbered_hit(scan, rules, dictionary, i, number, start, end))
    return hits


def _numbers_after(scan: Scan, rules: OperationRules, noun: int) -> list[tuple[str, int, int]]:
    """Numbers listed after a field noun, each with the token span to report."""
    found: list[tuple[str, int, int]] = []
    first = noun + 1
    while scan.free(first) and scan.norms[first] in rules.number_markers:
        first += 1
    end = noun + 1
    # "на полях 2,6 і 9" lists fields; after "на полі 1 і" a "5,2" is an amount.
    plural = scan.norms[noun] in rules.list_nouns
    j: int | None = first
    while (
        j is not None
        and _field_number(scan, j)
        and not (found and (_dated(scan, rules, j) or _before_field(scan, rules, j)))
        and not _counts_days(scan, rules, j)
    ):
        numbers = _split_numbers(scan.norms[j]) if plural else [scan.norms[j]]
        if not plural and not scan.norms[j].isdigit():
            break
        found.extend((n, noun if not found else j, j + 1) for n in numbers)
        end = j + 1
        j = _next_listed(scan, rules, end)
    if found:
        scan.claim(noun, end, "field")
    return found


def _counts_days(scan: Scan, rules: OperationRules, i: int) -> bool:
    """ "the steppe field 2 days ago": a count of days is a date, not field 2 (but
    "поле 3 тиждень тому" is field 3: a singular unit counts only one)."""
    unit = scan.norm(i + 1)
    if unit not in rules.dates.offset_units:
        return False
    return unit not in rules.dates.offset_singular or scan.norms[i] == "1"


def _field_number(scan: Scan, i: int) -> bool:
    """A whole number (or a "2,6" list), free: "12.05" is a date, not field 12."""
    return scan.number_at(i) and "." not in scan.norms[i]


def _dated(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A number that starts a date: "10 May", "3 дні тому"."""
    following = scan.norm(i + 1)
    return following in rules.dates.months or following in rules.dates.offset_units


def _before_field(scan: Scan, rules: OperationRules, i: int) -> bool:
    """ "на поле 2 і 150 на поле 9": a number that a field noun follows is that field's
    amount, not another field of the list."""
    j = i + 1
    while j < len(scan) and rules.names.is_stopword(scan.norms[j]):
        j += 1
    return j > i + 1 and rules.names.is_generic("field", scan.norm(j))


def _next_listed(scan: Scan, rules: OperationRules, i: int) -> int | None:
    """Where the next number of "2, 6 і 9" is: after a comma or a joining word."""
    if scan.free(i) and scan.norms[i] in rules.list_joiners:
        return i + 1
    if i < len(scan) and scan.gap(i) == ",":
        return i
    return None


def _split_numbers(norm: str) -> list[str]:
    """ "2,6" after "полях" is a list (2 and 6), not two and six tenths."""
    return [part for part in norm.split(",") if part]


def _number_before(scan: Scan, rules: OperationRules, noun: int) -> list[tuple[str, int, int]]:
    """ "3-є поле" (a number with an ordinal ending) or "третьому полі"."""
    j = noun - 1
    if scan.free(j) and (ordinal := rules.names.ordinals.label(scan.norms[j])) is not None:
        # "двадцять перше поле": a tens word before the ordinal adds up.
        tens = scan.spoken_tens(j - 1) if int(ordinal) < 10 else None
        first = j - 1 if tens is not None else j
        scan.claim(first, noun + 1, "field")
        return [(str(int(ordinal) + (tens or 0)), first, noun + 1)]
    if scan.free(j) and scan.norms[j] in rules.names.ordinal_suffixes and scan.number_at(j - 1):
        scan.claim(j - 1, noun + 1, "field")
        return [(scan.norms[j - 1], j - 1, noun + 1)]
    # "на 3 полі", "3 поле"; not "2 поля" (two fields).
    if _field_number(scan, j) and scan.norms[noun] in rules.numbered_before:
        scan.claim(j, noun + 1, "field")
        return [(scan.norms[j], j, noun + 1)]
    return []


def _numbered_hit(
    scan: Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    noun: int,
    number: str,
    start: int,
    end: int,
) -> NameHit:
    noun_norm = scan.norms[noun]
    entry = dictionary.match_words("field", (noun_norm, number))
    phrase = scan.raw(start, end)
    if entry is not None:
        return NameHit("field", start, phrase, entry, end=end)
    label = rules.number_label_latin if noun_norm.isascii() else rules.number_label_cyrillic
    return NameHit("field", start, phrase, None, f"{label} {int(float(number))}", end)


def known_names(
    scan: Scan, rules: OperationRules, dictionary: Dictionary, kind: Kind
) -> list[NameHit]:
    """Names the dictionary knows, longest first from the left."""
    hits: list[NameHit] = []
    if not dictionary.has(kind):
        return hits
    longest = dictionary.max_words(kind)
    i = 0
    while i < len(scan):
        found = _known_name_at(scan, rules, dictionary, kind, i, longest)
        if found is None:
            i += 1
            continue
        entry, end = found
        entry = dictionary.own_kind_of(entry) or entry
        hits.append(NameHit(kind, i, scan.raw(i, end), entry, end=end))
        scan.claim(i, end, kind)
        i = end
    return hits


def _known_name_at(
    scan: Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    kind: Kind,
    start: int,
    longest: int,
) -> tuple[DictionaryEntry, int] | None:
    names = rules.names
    if not scan.free(start) or names.is_stopword(scan.norms[start]):
        return None
    for end in range(min(len(scan), start + longest), start, -1):
        if not scan.all_free(start, end) or names.is_stopword(scan.norms[end - 1]):
            continue
        words = scan.norms[start:end]
        core = names.core(kind, words)
        # Numbers name a field only next to a field noun (handled above).
        if not core or all(is_number(part) for part in core):
            continue
        # A word the parser knows ("applied", "посів") is a name only when spelled so.
        fuzzy = not any(rules.is_keyword(word) for word in words)
        entry = dictionary.match_words(kind, words, fuzzy=fuzzy)
        if entry is not None:
            return entry, end
    return None


def plain_word(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A free word that means nothing to the parser: a candidate name or brand."""
    if not scan.free(i) or not scan.tokens[i].word:
        return False
    norm = scan.norms[i]
    if len(norm) < 2 or set(norm) <= _ROMAN_DIGITS:
        return False
    return not rules.is_vocabulary(norm)


def unknown_fields(
    scan: Scan, rules: OperationRules, after_verbs: Sequence[int] = ()
) -> list[NameHit]:
    """Field names the dictionary lacks: "на полі Гора", "на Східному полі", "на
    Східному", and a capitalised name right after an operation word ("полили
    Північне 20 мм", the object of the work)."""
    hits: list[NameHit] = []
    for i, norm in enumerate(scan.norms):
        if not scan.free(i):
            continue
        span: tuple[int, int] | None = None
        if rules.names.is_generic("field", norm):
            span = _name_after_noun(scan, rules, i) or _name_before_noun(scan, rules, i)
            scan.claim(i, i + 1, "field")
        elif norm in rules.name_prepositions:
            span = _name_after_preposition(scan, rules, i)
        elif i in after_verbs and _named(scan, rules, i):
            span = (i, i + 1)
        if span is not None:
            hits.append(_unknown_hit(scan, "field", *span))
    return hits


def _named(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A capitalised word that means nothing else, inside a sentence."""
    return (
        plain_word(scan, rules, i)
        and len(scan.norms[i]) >= _MIN_ALPHA_NAME
        and scan.capitalised(i)
        and not scan.starts_sentence(i)
        and not scan.latin(i)
    )


def _unknown_hit(scan: Scan, kind: Kind, start: int, end: int) -> NameHit:
    scan.claim(start, end, kind)
    return NameHit(kind, start, scan.raw(start, end), None, scan.phrase(start, end), end)


def _name_after_noun(scan: Scan, rules: OperationRules, noun: int) -> tuple[int, int] | None:
    j = noun + 1
    if not plain_word(scan, rules, j) or len(scan.norms[j]) < _MIN_ALPHA_NAME:
        return None
    end = j + 1
    if scan.capitalised(j) and plain_word(scan, rules, end) and scan.capitalised(end):
        end += 1
    return j, end


def _name_before_noun(scan: Scan, rules: OperationRules, noun: int) -> tuple[int, int] | None:
    j = noun - 1
    if not plain_word(scan, rules, j):
        return None
    if scan.latin(j) or scan.norms[j].endswith(rules.noun_adjective_endings):
        return j, noun
    return None


def _name_after_preposition(scan: Scan, rules: OperationRules, prep: int) -> tuple[int, int] | None:
    j = prep + 1
    if not plain_word(scan, rules, j) or len(scan.norms[j]) < _MIN_ALPHA_NAME:
        return None
    # "на другому тижні": an ordinal is a number, never a field's name.
    if rules.dates.numbers.ordinal(scan.norms[j]) is not None:
        return None
    named = scan.capitalised(j) and not scan.starts_sentence(j)
    if named or (not scan.latin(j) and scan.norms[j].endswith(rules.adjective_endings)):
        return j, j + 1
    return None


def _crop_word(scan: Scan, rules: OperationRules, i: int) -> bool:
    """A plain word that could be a crop; brand-styled words ("ДКС", "Pioneer") are not."""
    if not plain_word(scan, rules, i) or len(scan.norms[i]) < _MIN_ALPHA_NAME:
        return False
    if scan.norms[i].endswith(rules.not_crop_endings):
        return False
    return not (scan.tokens[i].raw.isupper() or (scan.latin(i) and scan.mostly_cyrillic()))


def unknown_crops(scan: Scan, rules: OperationRules, verb: int | None) -> list[NameHit]:
    """ "посіяли люпин", "sowed lupin", "культура люпин": a crop named but not known.

    ``verb`` is where a sowing or harvest verb stands, whose object is a crop.
    """
    hits: list[NameHit] = []
    if verb is not None:
        j = verb + 1
        while j < len(scan) and scan.claimed[j] in _SKIPPED_BEFORE_CROP:
            j += 1
        if _crop_word(scan, rules, j):
            hits.append(_unknown_hit(scan, "crop", j, j + 1))
    for i, norm in enumerate(scan.norms):
        if norm in rules.crop_markers and plain_word(scan, rules, i + 1):
            hits.append(_unknown_hit(scan, "crop", i + 1, i + 2))
    return hits


def name_result(hits: Sequence[NameHit]) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(id, phrase, several): one name, or None and every distinct name when several."""
    distinct: dict[str, NameHit] = {}
    for hit in sorted(hits, key=lambda h: h.pos):
        distinct.setdefault(hit.key, hit)
    if not distinct:
        return None, None, ()
    if len(distinct) > 1:
        return None, None, tuple(distinct)
    only = next(iter(distinct.values()))
    return (only.entry.canonical_id if only.entry else None), only.phrase, ()


def unknown_terms(hits: Iterable[NameHit]) -> tuple[tuple[str, str], ...]:
    seen: dict[tuple[str, str], None] = {}
    for hit in hits:
        if hit.entry is None and hit.unknown:
            seen.setdefault((hit.kind, hit.unknown), None)
    return tuple(seen)
