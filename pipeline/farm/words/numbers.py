"""Numbers said in words: "два дні тому", "двісті кіло на гектар", "півтора літра",
"twenty five millimetres", "a couple of days ago", "нуль три" (0.3), "нуль цілих
п'ятнадцять сотих" (0.15); and ordinals ("четвертому", "двадцять третього").

The words are data (``[numbers]`` of ``pipeline/rules/dates.toml``); this module adds
them up the way they are spoken: hundreds, then tens, then units ("двісті п'ятдесят
п'ять" is 255), "з половиною" / "and a half" adds 0.5. A dictated dose starts with
zero: "нуль три" is 0.3 and "нуль двадцять п'ять" 0.25 (the digits after the point),
"дві цілих п'ять десятих" 2.5. Ordinals are lemmas in the rules file ("четвертий",
"четвёртый"), so the morphological dictionary brings every case form; a tens word
before one adds up ("двадцять першому" is 21). A word that is more often an
article or a pronoun than a number ("один", "a", "пару") counts only right before a
unit, which the caller recognises (a measure, a period word).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.grammar import Grammar, TermSet
from pipeline.text import is_number

__all__ = ["NumberSpan", "NumberWords", "format_number"]

_HUNDRED = 100
_TEN = 10
_HALF = 0.5


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list | tuple) else ()


def _valued(items: Any, grammar: Grammar) -> TermSet:
    """``[{value, words}]`` as terms labelled with their value."""
    return TermSet(
        (
            (word, format_number(float(item["value"])))
            for item in items or []
            for word in _strings(item.get("words"))
        ),
        grammar,
    )


def format_number(value: float) -> str:
    """As a token: "250", "1.5"."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True, slots=True)
class NumberSpan:
    """Tokens ``start:end`` say the number ``value``."""

    start: int
    end: int
    value: float


def _place(value: float) -> int:
    """What may follow a number word: after hundreds tens or units, after tens units,
    after a fraction ("пів", "half") nothing."""
    if value % 1:
        return 0
    if value >= _HUNDRED:
        return _HUNDRED
    if value >= _TEN and value % _TEN == 0:
        return _TEN
    return 1


@dataclass(frozen=True, slots=True)
class NumberWords:
    values: TermSet
    multipliers: TermSet
    unit_only: TermSet
    articles: TermSet
    joiners: TermSet
    of: TermSet
    and_a_half: TermSet
    half_prefixes: tuple[str, ...] = ()
    zero: TermSet | None = None
    point: TermSet | None = None
    fractions: TermSet | None = None
    ordinals: TermSet | None = None
    not_ordinals: TermSet | None = None

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> NumberWords:
        return cls(
            values=TermSet(
                (
                    (word, format_number(float(item["value"])))
                    for item in raw.get("values", [])
                    for word in _strings(item.get("words"))
                ),
                grammar,
            ),
            multipliers=TermSet.flat(_strings(raw.get("multipliers")), "x", grammar),
            unit_only=TermSet.flat(_strings(raw.get("unit_only")), "u", grammar),
            articles=TermSet.flat(_strings(raw.get("articles")), "a", grammar),
            joiners=TermSet.flat(_strings(raw.get("joiners")), "j", grammar),
            of=TermSet.flat(_strings(raw.get("of")), "o", grammar),
            and_a_half=TermSet.flat(_strings(raw.get("and_a_half")), "h", grammar),
            half_prefixes=_strings(raw.get("half_prefixes")),
            zero=TermSet.flat(_strings(raw.get("zero")), "z", grammar),
            point=TermSet.flat(_strings(raw.get("point")), "p", grammar),
            fractions=_valued(raw.get("fractions", []), grammar),
            ordinals=_valued(raw.get("ordinals", []), grammar),
            not_ordinals=TermSet.flat(_strings(raw.get("not_ordinals")), "n", grammar),
        )

    def ordinal(self, token: str) -> int | None:
        """The number an ordinal word says ("четвертому" is 4), or None."""
        if self.ordinals is None or (self.not_ordinals is not None and token in self.not_ordinals):
            return None
        label = self.ordinals.label(token)
        return int(float(label)) if label is not None else None

    def half_of(self, token: str, is_unit: Callable[[Sequence[str], int], bool]) -> str | None:
        """The unit of "півтонни" ("тонни"), when a token is a half written with its unit."""
        for prefix in self.half_prefixes:
            rest = token[len(prefix) :]
            if token.startswith(prefix) and len(rest) > 1 and is_unit((rest,), 0):
                return rest
        return None

    def value(self, token: str) -> float | None:
        label = self.values.label(token)
        return float(label) if label is not None else None

    def spans(
        self, tokens: Sequence[str], is_unit: Callable[[Sequence[str], int], bool]
    ) -> list[NumberSpan]:
        """Every number said in words, left to right; ``is_unit(tokens, i)`` says
        whether a unit (a measure, a day, a week ...) is written from token ``i``."""
        found: list[NumberSpan] = []
        i = 0
        while i < len(tokens):
            span = self._span_at(tokens, i, is_unit)
            if span is None:
                i += 1
                continue
            found.append(span)
            i = span.end
        return found

    def _span_at(
        self, tokens: Sequence[str], start: int, is_unit: Callable[[Sequence[str], int], bool]
    ) -> NumberSpan | None:
        decimal = self._decimal_at(tokens, start, is_unit)
        return decimal if decimal is not None else self._plain_at(tokens, start, is_unit)

    def _plain_at(
        self, tokens: Sequence[str], start: int, is_unit: Callable[[Sequence[str], int], bool]
    ) -> NumberSpan | None:
        i = start
        if tokens[i] in self.articles and self._number_follows(tokens, i):
            i += 1  # "a couple of", "a hundred"
        total, place, end, words = 0.0, _HUNDRED * 10, i, 0
        while end < len(tokens):
            token = tokens[end]
            value = None if is_number(token) else self.value(token)
            if value is None:
                if words and self._joins(tokens, end, place):
                    end += 1
                    continue
                break
            if token in self.multipliers and words:
                total, place = max(total, 1.0) * value, _HUNDRED
                end, words = end + 1, words + 1
                continue
            # "шістдесят, пів літра": a half after another number is not part of it.
            if value >= place or (words and (total % 1 or value % 1)):
                break
            total += value
            place = _place(value)
            end, words = end + 1, words + 1
        if not words:
            return None
        return self._finished(tokens, start, end, words, total, is_unit)

    def _whole_at(
        self, tokens: Sequence[str], start: int, is_unit: Callable[[Sequence[str], int], bool]
    ) -> NumberSpan | None:
        """A whole number said in words from ``start`` (no half, no zero); "один"
        counts here without a unit ("нуль один")."""
        if start >= len(tokens) or (self.zero is not None and tokens[start] in self.zero):
            return None
        span = self._plain_at(tokens, start, lambda found, i: True)
        if span is None or span.value % 1:
            return None
        return span

    def _decimal_at(
        self, tokens: Sequence[str], start: int, is_unit: Callable[[Sequence[str], int], bool]
    ) -> NumberSpan | None:
        """ "нуль три" (0.3), "нуль двадцять п'ять" (0.25), "нуль цілих п'ятнадцять
        сотих" (0.15), "дві цілих п'ять десятих" (2.5)."""
        if self.zero is None or self.point is None or self.fractions is None:
            return None
        whole, at = 0.0, start
        if tokens[start] in self.zero:
            at = start + 1
        else:
            head = self._whole_at(tokens, start, is_unit)
            if head is None or head.end >= len(tokens) or tokens[head.end] not in self.point:
                return None
            whole, at = head.value, head.end
        pointed = at < len(tokens) and tokens[at] in self.point
        at += pointed
        tail = self._whole_at(tokens, at, is_unit)
        if tail is None:
            return None
        places = self.fractions.label(tokens[tail.end]) if tail.end < len(tokens) else None
        if places is not None:
            return NumberSpan(start, tail.end + 1, whole + tail.value / float(places))
        digits = len(format_number(tail.value))
        return NumberSpan(start, tail.end, whole + tail.value / 10**digits)

    def _number_follows(self, tokens: Sequence[str], i: int) -> bool:
        return i + 1 < len(tokens) and bool(self.value(tokens[i + 1]))

    def _joins(self, tokens: Sequence[str], at: int, place: int) -> bool:
        """A joiner at ``at`` ("сто і два", "hundred and five") goes on with the
        number when a smaller place's number word follows it."""
        if tokens[at] in self.joiners and at + 1 < len(tokens):
            following = self.value(tokens[at + 1])
            return following is not None and following < place
        return False

    def _finished(
        self,
        tokens: Sequence[str],
        start: int,
        end: int,
        words: int,
        total: float,
        is_unit: Callable[[Sequence[str], int], bool],
    ) -> NumberSpan | None:
        """The number words ``start:end`` with what may follow them: "and a half", "of"
        before a unit; None for a word that counts only before a unit and has none."""
        needs_unit = words == 1 and tokens[end - 1] in self.unit_only
        half = self.and_a_half.match_at(tokens, end)
        if half is not None:
            total, end = total + _HALF, end + half[1]
        if end < len(tokens) and tokens[end] in self.of and is_unit(tokens, end + 1):
            end += 1  # "a couple of days": the unit follows the number
        if needs_unit and not (end < len(tokens) and is_unit(tokens, end)):
            return None
        return NumberSpan(start, end, total)
