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


@dataclass(frozen=True, slots=True)
class Ordinal:
    """Tokens ``start:end`` say the ordinal ``value``."""

    value: int
    start: int
    end: int


def ordinal_at(scan: Scan, numbers: NumberWords, i: int) -> Ordinal | None:
    """The ordinal whose last word is token ``i``, free, with a tens word before it
    ("двадцять першому" is 21)."""
    if not (scan.free(i) and scan.tokens[i].word):
        return None
    value = numbers.ordinal(scan.norms[i])
    if value is None:
        return None
    if value < _TEN and i > 0 and (tens := scan.spoken_tens(i - 1)) is not None:
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


def _field_ordinal(scan: Scan, rules: OperationRules, i: int) -> Ordinal | None:
    """An ordinal word, or a number with an ordinal ending ("4-му", "11-ом")."""
    found = ordinal_at(scan, rules.dates.numbers, i)
    if found is not None:
        return found
    raw = scan.tokens[i].raw
    suffixed = scan.free(i + 1) and scan.norms[i + 1] in rules.names.ordinal_suffixes
    if scan.number_at(i) and raw.isdigit() and suffixed and not scan.latin(i + 1):
        return Ordinal(int(raw), i, i + 2)
    return None


def _field_span(
    scan: Scan, rules: OperationRules, found: Ordinal, hits: list[NameHit]
) -> tuple[int, int] | None:
    """What names the field, when the ordinal does: "поле сьоме" (with its noun), "на
    четвертому", "на четвертім і сьомім", "на десятому, одинадцятому"."""
    start, end = found.start, found.end
    before = scan.norm(start - 1)
    if scan.free(start - 1) and rules.names.is_generic("field", before):
        return start - 1, end
    listed = bool(hits) and (
        (hits[-1].end == start - 1 and before in rules.list_joiners)
        or (hits[-1].end == start and scan.gap(start) == ",")
    )
    if listed or before in rules.ordinal_prepositions or _listed_before(scan, rules, found):
        return start, end
    return None


def ordinal_fields(scan: Scan, rules: OperationRules, dictionary: Dictionary) -> list[NameHit]:
    """ "на четвертому", "на четвертім і сьомім", "на дев'ятому та шістнадцятому",
    "поле сьоме", "на 4-му": the farm's numbered fields named by an ordinal."""
    hits: list[NameHit] = []
    for i in range(len(scan)):
        found = _field_ordinal(scan, rules, i)
        if found is None or _counts_something(scan, rules, found.end):
            continue
        span = _field_span(scan, rules, found, hits)
        entry = dictionary.match_words("field", (rules.number_label_cyrillic, str(found.value)))
        if span is None or entry is None:
            continue
        scan.claim(*span, "field")
        hits.append(NameHit("field", span[0], scan.raw(*span), entry, end=span[1]))
    return hits
