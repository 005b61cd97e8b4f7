"""``pipeline/rules/dates.toml`` compiled into term sets, once (``pipeline/rulebook.py``).

The operation parser's date pass (:mod:`pipeline.farm.journal.parsing.dates`) and the period
reader (:mod:`pipeline.farm.words.dates`) both read these words; numbers said in words
(:mod:`pipeline.farm.words.numbers`) come from the same file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from pipeline.farm.words.numbers import NumberWords
from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load, parse
from pipeline.text import fold

__all__ = ["DEFAULT_DATES", "DateWords"]

DEFAULT_DATES = RULES_DIR / "dates.toml"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list | tuple) else ()


@dataclass(frozen=True, slots=True)
class DateWords:
    """``dates.toml`` compiled into term sets."""

    months: TermSet
    weekdays: TermSet
    relative: TermSet
    next: TermSet
    last: TermSet
    this: TermSet
    future_prepositions: TermSet
    day_suffixes: TermSet
    offset_ahead: TermSet
    offset_back: TermSet
    offset_units: TermSet
    #: Singular unit words ("тиждень", "day"): only "one" counts them.
    offset_singular: TermSet
    month: TermSet
    week: TermSet
    season: TermSet
    year: TermSet
    since: TermSet
    #: "day" / "week" / "month" / "year": what "за 3 ..." counts.
    span_units: TermSet
    #: "останні", "past": the span up to today ("за останній тиждень").
    recent: TermSet
    #: "наступного тижня", "next month".
    coming: TermSet
    #: "щоденний звіт", "daily".
    daily: TermSet
    #: Between the two days of a range: "з 1 по 15 травня", "from 1 to 15 May".
    range_to: TermSet
    #: "з початку місяця", "since the start of the year".
    since_start: TermSet
    numbers: NumberWords
    #: "вісімнадцятого числа": the word that makes an ordinal a day of the month.
    day_nouns: TermSet | None = None
    #: The genitive endings of an ordinal said alone as a day ("двадцять третього").
    ordinal_day_endings: tuple[str, ...] = ()
    #: Words after which a genitive ordinal is no day ("з першого", "до десятого").
    ordinal_day_not_after: TermSet | None = None

    @classmethod
    def load(cls, grammar: Grammar, path: Path = DEFAULT_DATES) -> DateWords:
        return cls._build(load(path, _DatesFile).model_dump(by_alias=True), grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> DateWords:
        checked = parse(raw, _DatesFile, source=DEFAULT_DATES.name)
        return cls._build(checked.model_dump(by_alias=True), grammar)

    @classmethod
    def _build(cls, raw: Mapping[str, Any], grammar: Grammar) -> DateWords:
        """The term sets of a file :class:`_DatesFile` checked."""
        days: Mapping[str, Any] = raw["days"]
        periods: Mapping[str, Any] = raw["periods"]

        def flat(section: Mapping[str, Any], key: str) -> TermSet:
            return TermSet.flat(_strings(section.get(key)), key, grammar)

        return cls(
            months=TermSet.labelled(
                {str(int(n)): _strings(words) for n, words in raw["months"].items()}, grammar
            ),
            weekdays=TermSet.labelled(
                {str(n): _strings(words) for n, words in enumerate(days["weekdays"])}, grammar
            ),
            relative=TermSet(
                (
                    (word, str(int(item["days"])))
                    for item in days["relative"]
                    for word in _strings(item.get("words"))
                ),
                grammar,
            ),
            next=flat(days, "next"),
            last=flat(periods, "last"),
            this=flat(periods, "this"),
            future_prepositions=flat(days, "future_prepositions"),
            day_suffixes=flat(days, "day_suffixes"),
            offset_ahead=flat(days, "offset_ahead"),
            offset_back=flat(days, "offset_back"),
            offset_units=TermSet.labelled(
                {"1": _strings(days.get("offset_days")), "7": _strings(days.get("offset_weeks"))},
                grammar,
            ),
            offset_singular=flat(days, "offset_singular"),
            month=flat(periods, "month"),
            week=flat(periods, "week"),
            season=flat(periods, "season"),
            year=flat(periods, "year"),
            since=flat(periods, "from"),
            span_units=TermSet.labelled(
                {
                    "day": _strings(days.get("offset_days")),
                    "week": (*_strings(days.get("offset_weeks")), *_strings(periods.get("week"))),
                    "month": _strings(periods.get("month")),
                    "year": _strings(periods.get("year")),
                },
                grammar,
            ),
            recent=flat(periods, "recent"),
            coming=flat(periods, "next"),
            daily=flat(periods, "daily"),
            range_to=flat(periods, "to"),
            since_start=flat(periods, "since_start"),
            numbers=NumberWords.from_mapping(raw.get("numbers", {}), grammar),
            day_nouns=flat(days, "day_nouns"),
            ordinal_day_endings=tuple(fold(e) for e in _strings(days.get("ordinal_day_endings"))),
            ordinal_day_not_after=flat(days, "ordinal_day_not_after"),
        )


Words = tuple[str, ...]


class _Relative(RulesModel):
    days: int
    words: Words


class _Days(RulesModel):
    relative: tuple[_Relative, ...]
    weekdays: Annotated[tuple[Words, ...], Field(min_length=7, max_length=7)]
    next: Words = ()
    future_prepositions: Words = ()
    day_suffixes: Words = ()
    offset_ahead: Words = ()
    offset_back: Words = ()
    offset_days: Words = ()
    offset_weeks: Words = ()
    offset_singular: Words = ()
    day_nouns: Words = ()
    ordinal_day_endings: Words = ()
    ordinal_day_not_after: Words = ()


class _Periods(RulesModel):
    last: Words = ()
    recent: Words = ()
    next: Words = ()
    daily: Words = ()
    to: Words = ()
    since_start: Words = ()
    this: Words = ()
    month: Words = ()
    week: Words = ()
    season: Words = ()
    year: Words = ()
    since: Words = Field(default=(), alias="from")


class _NumberValue(RulesModel):
    value: float
    words: Words


class _Numbers(RulesModel):
    values: tuple[_NumberValue, ...] = ()
    multipliers: Words = ()
    articles: Words = ()
    unit_only: Words = ()
    and_a_half: Words = ()
    joiners: Words = ()
    half_prefixes: Words = ()
    of: Words = ()
    zero: Words = ()
    point: Words = ()
    fractions: tuple[_NumberValue, ...] = ()
    ordinals: tuple[_NumberValue, ...] = ()
    not_ordinals: Words = ()


class _DatesFile(RulesModel):
    version: int = 1
    #: Month number (1..12) -> its words.
    months: dict[Annotated[int, Field(ge=1, le=12)], Words]
    days: _Days
    periods: _Periods
    numbers: _Numbers = _Numbers()
