"""``pipeline/rules/dates.toml`` compiled into term sets, once (``pipeline/rulebook.py``).

The operation parser's date pass (:mod:`pipeline.farm.journal.parsing.dates`) and the period
reader (:mod:`pipeline.farm.words.dates`) both read these words; numbers said in words
(:mod:`pipeline.farm.words.numbers`) come from the same file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.farm.words.numbers import NumberWords
from pipeline.grammar import Grammar, TermSet
from pipeline.rules import RULES_DIR

__all__ = ["DEFAULT_DATES", "DateWords"]

DEFAULT_DATES = RULES_DIR / "dates.toml"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


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

    @classmethod
    def load(cls, grammar: Grammar, path: Path = DEFAULT_DATES) -> DateWords:
        with path.open("rb") as fh:
            return cls.from_mapping(tomllib.load(fh), grammar)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], grammar: Grammar) -> DateWords:
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
        )
