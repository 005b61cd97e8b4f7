"""Dates and periods in a farmer's words: one reader for the operation parser and for
the period of a report, plan/fact or chart request.

The words (months, weekdays, "вчора", "за минулий місяць" ...) are data in
``pipeline/rules/dates.toml``, matched through :mod:`pipeline.grammar`; numbers
written as dates are read here (:func:`numeric_dates`). The operation parser takes
both for its date pass (:mod:`pipeline.farm.parsing.dates`); :func:`find_period`
turns them into a :class:`Period`.

Rules of a period (a farmer asks about the past, so a bare month is the latest one
that started):

* a month name is that month of the current year, or of last year when it has not
  begun yet ("за жовтень" in March is last October); an explicit year wins;
* "за тиждень" is the last 7 days up to today; "минулий тиждень" the previous
  Monday..Sunday; "цей тиждень" this Monday..Sunday;
* "за місяць"/"цей місяць" is the current month, "минулий місяць" the previous one;
* the season is the calendar year in the northern hemisphere (Ukrainian farms keep
  their books by calendar year), July..June in the southern one;
* two dates make a range, a missing year is the current one (last year when the
  start is still ahead); one date after "з"/"from" runs to today; one date alone is
  that day.

Numbers as dates: ``2026-05-12``; ``12.05.2026``, ``12/05/26``, ``12-05-2026`` (one
separator throughout); ``12.05`` or ``12/05`` without a year. Without a year a month
after a dot needs two digits ("1.5 л" is a quantity), and "05/20" with slashes, which
cannot be day first, is read month first.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from pipeline.grammar import Grammar, TermSet
from pipeline.text import tokenize

__all__ = [
    "DEFAULT_DATES",
    "DateWords",
    "DefaultKind",
    "Hemisphere",
    "NumericDate",
    "Period",
    "current_month",
    "current_season",
    "find_period",
    "numeric_dates",
    "parse_period",
    "previous_month",
]

DEFAULT_DATES = Path(__file__).resolve().parent.parent / "rules" / "dates.toml"

PeriodKind = Literal["day", "week", "month", "season", "year", "range"]
DefaultKind = Literal["month", "season", "week"]
Hemisphere = Literal["north", "south"]

_CENTURY = 2000
#: A leap year: "29.02" without a year is a date.
_ANY_LEAP_YEAR = 2000
_YEAR = re.compile(r"^(19|20)\d\d$")


# =========================================================================== words


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
    month: TermSet
    week: TermSet
    season: TermSet
    year: TermSet
    since: TermSet

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
            month=flat(periods, "month"),
            week=flat(periods, "week"),
            season=flat(periods, "season"),
            year=flat(periods, "year"),
            since=flat(periods, "from"),
        )


# =========================================================================== numbers

_ISO_RE = re.compile(r"(?<![\d.,/])(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_DMY_RE = re.compile(r"(?<![\d.,/])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?!\d|[.,/]\d)")
# A hyphen after it may only start the second date of a range ("01.04-30.04"), not a
# number ("1.05-2 л").
_DM_RE = re.compile(r"(?<![\d.,/])(\d{1,2})(?:\.(\d{2})|/(\d{1,2}))(?!\d|[.,/]\d|-\d(?!\d?[./]\d))")


@dataclass(frozen=True, slots=True)
class NumericDate:
    """A date written in numbers at ``text[start:end]``; ``year`` None when not given."""

    start: int
    end: int
    day: int
    month: int
    year: int | None

    def on(self, year: int) -> date | None:
        """The date in its own year, else in ``year``; None if that has no such day."""
        return _safe_date(self.year or year, self.month, self.day)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _day_month(day: int, month: int, slashes: bool) -> tuple[int, int] | None:
    """Day first; "05/20" with slashes can only be the American month first."""
    if _safe_date(_ANY_LEAP_YEAR, month, day) is not None:
        return day, month
    if slashes and _safe_date(_ANY_LEAP_YEAR, day, month) is not None:
        return month, day
    return None


def _read(pattern: re.Pattern[str], match: re.Match[str]) -> NumericDate | None:
    groups = match.groups()
    year: int | None = None
    if pattern is _ISO_RE:
        year = int(groups[0])
        found = _day_month(int(groups[2]), int(groups[1]), slashes=False)
    elif pattern is _DMY_RE:
        raw_year = groups[3]
        year = int(raw_year) + _CENTURY if len(raw_year) == 2 else int(raw_year)
        found = _day_month(int(groups[0]), int(groups[2]), slashes=groups[1] == "/")
    else:
        month = int(groups[1] or groups[2])
        found = _day_month(int(groups[0]), month, slashes="/" in match.group(0))
    if found is None or _safe_date(year or _ANY_LEAP_YEAR, found[1], found[0]) is None:
        return None
    return NumericDate(match.start(), match.end(), found[0], found[1], year)


def numeric_dates(text: str) -> list[NumericDate]:
    """Every valid date written in numbers, left to right, none overlapping another."""
    found: list[NumericDate] = []
    for pattern in (_ISO_RE, _DMY_RE, _DM_RE):
        for match in pattern.finditer(text):
            if any(hit.start < match.end() and match.start() < hit.end for hit in found):
                continue
            hit = _read(pattern, match)
            if hit is not None:
                found.append(hit)
    return sorted(found, key=lambda hit: hit.start)


# =========================================================================== periods


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date  # inclusive
    kind: PeriodKind

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def month_period(year: int, month: int) -> Period:
    start = date(year, month, 1)
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return Period(start, following - timedelta(days=1), "month")


def current_month(today: date) -> Period:
    return month_period(today.year, today.month)


def previous_month(today: date) -> Period:
    first = today.replace(day=1) - timedelta(days=1)
    return month_period(first.year, first.month)


def season_period(year: int, hemisphere: Hemisphere = "north") -> Period:
    """The season that ``year``'s harvest belongs to (south: July of year-1 .. June)."""
    if hemisphere == "south":
        return Period(date(year - 1, 7, 1), date(year, 6, 30), "season")
    return Period(date(year, 1, 1), date(year, 12, 31), "season")


def current_season(today: date, hemisphere: Hemisphere = "north") -> Period:
    if hemisphere == "south" and today.month >= 7:
        return season_period(today.year + 1, hemisphere)
    return season_period(today.year, hemisphere)


def last_days(today: date, days: int) -> Period:
    return Period(today - timedelta(days=days - 1), today, "week" if days == 7 else "range")


def calendar_week(today: date, weeks_back: int = 0) -> Period:
    monday = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks_back)
    return Period(monday, monday + timedelta(days=6), "week")


def year_period(year: int) -> Period:
    return Period(date(year, 1, 1), date(year, 12, 31), "year")


def default_period(kind: DefaultKind, today: date, hemisphere: Hemisphere = "north") -> Period:
    if kind == "season":
        return current_season(today, hemisphere)
    if kind == "week":
        return last_days(today, 7)
    return current_month(today)


def _from_dates(
    text: str, hits: Sequence[NumericDate], today: date, words: DateWords
) -> Period | None:
    first = hits[0]
    if len(hits) >= 2:
        second = hits[1]
        start_year = first.year or today.year
        start = first.on(start_year)
        if start is not None and first.year is None and start > today:
            start_year -= 1  # "з 01.11 по 30.11" written in March means last November
            start = first.on(start_year)
        end = second.on(start_year)
        if start is None or end is None:
            return None
        if end < start and second.year is None:
            end = second.on(start_year + 1)  # "з 01.12 по 31.01"
        if end is None or end < start:
            return None
        return Period(start, end, "range")
    day = first.on(today.year)
    if day is not None and first.year is None and day > today:
        day = first.on(today.year - 1)
    if day is None:
        return None
    before = tokenize(text[: first.start])
    if before and before[-1] in words.since and day <= today:
        return Period(day, today, "range")
    return Period(day, day, "day")


def _without(text: str, hits: Sequence[NumericDate]) -> str:
    for hit in reversed(hits):
        text = text[: hit.start] + " " + text[hit.end :]
    return text


def _from_words(
    tokens: Sequence[str], today: date, hemisphere: Hemisphere, words: DateWords
) -> Period | None:
    year = next((int(token) for token in tokens if _YEAR.match(token)), None)
    for token in tokens:
        month = words.months.label(token)
        if month is not None:
            if year is None:
                year = today.year if int(month) <= today.month else today.year - 1
            return month_period(year, int(month))

    def said(terms: TermSet) -> bool:
        return any(token in terms for token in tokens)

    last, this = said(words.last), said(words.this)
    if said(words.week):
        if last:
            return calendar_week(today, weeks_back=1)
        return calendar_week(today) if this else last_days(today, 7)
    if said(words.month):
        return previous_month(today) if last else current_month(today)
    if said(words.season):
        if year is not None:
            return season_period(year, hemisphere)
        season = current_season(today, hemisphere)
        return season_period(season.end.year - 1, hemisphere) if last else season
    if said(words.year):
        if year is not None:
            return year_period(year)
        return year_period(today.year - 1 if last else today.year)
    return year_period(year) if year is not None else None


def find_period(
    text: str, today: date, words: DateWords, *, hemisphere: Hemisphere = "north"
) -> Period | None:
    """The period ``text`` names, or None when it names none."""
    hits = numeric_dates(text)
    if hits:
        found = _from_dates(text, hits, today, words)
        if found is not None:
            return found
    return _from_words(tokenize(_without(text, hits)), today, hemisphere, words)


def parse_period(
    text: str,
    today: date,
    words: DateWords,
    *,
    default: DefaultKind = "month",
    hemisphere: Hemisphere = "north",
) -> Period:
    """The period ``text`` names, else the ``default`` one around ``today``."""
    found = find_period(text, today, words, hemisphere=hemisphere)
    return found if found is not None else default_period(default, today, hemisphere)
