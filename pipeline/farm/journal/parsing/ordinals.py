"""Ordinals said alone: a farm's numbered field ("на четвертому", "на седьмом", "на
двадцять першому") and a day of the month ("двадцять третього", "п'ятого травня").

The ordinal words are lemmas in ``[numbers]`` of ``pipeline/rules/dates.toml``; the
morphological dictionaries bring their case forms (:mod:`pipeline.grammar`). A field
is read only when the farm has a field with that number: "на другому" names nothing
on a farm without a field 2, so nothing is invented.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing.names import NameHit
from pipeline.farm.journal.parsing.rules import OperationRules
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.farm.words.numbers import NumberWords

__all__ = ["Ordinal", "ordinal_at", "ordinal_fields"]

_TEN = 10
_MAX_TENS = 90


@dataclass(frozen=True, slots=True)
class Ordinal:
    """Tokens ``start:end`` say the ordinal ``value``."""

    value: int
    start: int
    end: int


def _spoken_tens(scan: Scan, i: int) -> int | None:
    """A free number said in words that is a whole ten ("двадцять" read as 20)."""
    if not scan.number_at(i) or scan.tokens[i].raw[:1].isdigit():
        return None
    try:
        value = float(scan.norms[i])
    except ValueError:
        return None
    whole = int(value)
    return whole if whole == value and whole % _TEN == 0 and _TEN < whole <= _MAX_TENS else None


def ordinal_at(scan: Scan, numbers: NumberWords, i: int) -> Ordinal | None:
    """The ordinal whose last word is token ``i``, free, with a tens word before it
    ("двадцять першому" is 21)."""
    if not (scan.free(i) and scan.tokens[i].word):
        return None
    value = numbers.ordinal(scan.norms[i])
    if value is None:
        return None
    if value < _TEN and i > 0 and (tens := _spoken_tens(scan, i - 1)) is not None:
        return Ordinal(tens + value, i - 1, i + 1)
    return Ordinal(value, i, i + 1)


def _counts_something(scan: Scan, rules: OperationRules, end: int) -> bool:
    """The word after the ordinal is what it counts: a week, a leaf, a month."""
    following = scan.norm(end)
    dates = rules.dates
    return bool(following) and (
        following in rules.ordinal_not_before
        or following in dates.offset_units
        or following in dates.span_units
        or following in dates.months
        or (dates.day_nouns is not None and following in dates.day_nouns)
    )


def _listed_before(scan: Scan, rules: OperationRules, found: Ordinal) -> bool:
    """ "четверте і сьоме поле", "на першому і на другому полі": listed before a
    numbered field."""
    j = found.end
    if scan.norm(j) not in rules.list_joiners:
        return False
    j += 1
    if scan.norm(j) in rules.ordinal_prepositions:
        j += 1
    return 0 <= j < len(scan) and scan.claimed[j] == "field" and not scan.joined(j)


def ordinal_fields(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[NameHit]:
    """ "на четвертому", "на четвертім і сьомім", "на дев'ятому та шістнадцятому":
    the farm's numbered fields named by an ordinal alone."""
    hits: list[NameHit] = []
    numbers = rules.dates.numbers
    for i in range(len(scan)):
        found = ordinal_at(scan, numbers, i)
        if found is None or _counts_something(scan, rules, found.end):
            continue
        before = scan.norm(found.start - 1)
        listed = bool(hits) and (
            (hits[-1].end == found.start - 1 and before in rules.list_joiners)
            or (hits[-1].end == found.start and scan.gap(found.start) == ",")
        )
        if not (
            listed or before in rules.ordinal_prepositions or _listed_before(scan, rules, found)
        ):
            continue
        entry = dictionary.match_words("field", (rules.number_label_cyrillic, str(found.value)))
        if entry is None:
            continue
        scan.claim(found.start, found.end, "field")
        phrase = scan.raw(found.start, found.end)
        hits.append(NameHit("field", found.start, phrase, entry, end=found.end))
    return hits
