"""The period a request is about: "за жовтень", "за минулий місяць", "з 01.04 по 30.04".

Farmers name periods in Ukrainian, Russian, surzhyk and English; the words live in
``pipeline/rules/periods.toml``. :func:`find_period` returns None when the text names
no period, so each caller picks its own default through :func:`parse_period`: reports
and plan/fact default to the current month, season summaries to the current season.

Rules (a farmer asks about the past, so a bare month is the latest one that started):

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
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from pipeline.text import fold, tokenize

RULES_FILE = Path(__file__).resolve().parent.parent / "rules" / "periods.toml"

PeriodKind = Literal["day", "week", "month", "season", "year", "range"]
DefaultKind = Literal["month", "season", "week"]
Hemisphere = Literal["north", "south"]

#: dd.mm, dd/mm, dd.mm.yy, dd.mm.yyyy; ISO yyyy-mm-dd.
_DMY = re.compile(r"(?<![\d.])(\d{1,2})[./](\d{1,2})(?:[./](\d{4}|\d{2}))?(?![\d/]|\.\d)")
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_YEAR = re.compile(r"^(19|20)\d\d$")


@dataclass(frozen=True, slots=True)
class Period:
    start: date
    end: date  # inclusive
    kind: PeriodKind

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


@dataclass(frozen=True, slots=True)
class PeriodWords:
    months: Mapping[str, int]
    last: frozenset[str]
    this: frozenset[str]
    month: frozenset[str]
    week: frozenset[str]
    season: frozenset[str]
    year: frozenset[str]
    since: frozenset[str]


def _folded(words: Iterable[Any]) -> frozenset[str]:
    out: set[str] = set()
    for word in words:
        out.update(tokenize(str(word)))
    return frozenset(out)


@functools.cache
def load_words(path: Path = RULES_FILE) -> PeriodWords:
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    months: dict[str, int] = {}
    for number, names in raw["months"].items():
        for name in _folded(names):
            months[name] = int(number)
    words = raw["words"]
    return PeriodWords(
        months=months,
        last=_folded(words["last"]),
        this=_folded(words["this"]),
        month=_folded(words["month"]),
        week=_folded(words["week"]),
        season=_folded(words["season"]),
        year=_folded(words["year"]),
        since=_folded(words["from"]),
    )


# --- Building blocks -------------------------------------------------------------------


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


# --- Dates written as numbers ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _DateHit:
    day: int
    month: int
    year: int | None
    start: int  # position in the text


def _year(raw: str | None) -> int | None:
    if raw is None:
        return None
    value = int(raw)
    return value + 2000 if value < 100 else value


def _date_hits(text: str) -> list[_DateHit]:
    hits = [
        _DateHit(int(m.group(3)), int(m.group(2)), int(m.group(1)), m.start())
        for m in _ISO.finditer(text)
    ]
    taken = [(m.start(), m.end()) for m in _ISO.finditer(text)]
    for m in _DMY.finditer(text):
        if any(start <= m.start() < end for start, end in taken):
            continue
        hits.append(_DateHit(int(m.group(1)), int(m.group(2)), _year(m.group(3)), m.start()))
    hits.sort(key=lambda hit: hit.start)
    return [hit for hit in hits if _valid(hit)]


def _valid(hit: _DateHit) -> bool:
    try:
        date(hit.year or 2000, hit.month, hit.day)  # 2000 is a leap year: 29.02 passes
    except ValueError:
        return False
    return True


def _resolve(hit: _DateHit, year: int) -> date | None:
    try:
        return date(hit.year or year, hit.month, hit.day)
    except ValueError:  # 29.02 in a common year
        return None


def _strip_dates(text: str) -> str:
    return _DMY.sub(" ", _ISO.sub(" ", text))


def _from_dates(text: str, hits: list[_DateHit], today: date, words: PeriodWords) -> Period | None:
    first = hits[0]
    if len(hits) >= 2:
        second = hits[1]
        start_year = first.year or today.year
        start = _resolve(first, start_year)
        if start is not None and first.year is None and start > today:
            start_year -= 1  # "з 01.11 по 30.11" written in March means last November
            start = _resolve(first, start_year)
        end = _resolve(second, second.year or start_year)
        if start is None or end is None:
            return None
        if end < start and second.year is None:
            end = _resolve(second, start_year + 1)  # "з 01.12 по 31.01"
        if end is None or end < start:
            return None
        return Period(start, end, "range")
    day = _resolve(first, first.year or today.year)
    if day is None:
        return None
    if first.year is None and day > today:
        day = _resolve(first, today.year - 1)
        if day is None:
            return None
    before = tokenize(text[: first.start])
    if before and before[-1] in words.since and day <= today:
        return Period(day, today, "range")
    return Period(day, day, "day")


# --- Words -----------------------------------------------------------------------------


def _month_named(
    tokens: tuple[str, ...], year: int | None, today: date, words: PeriodWords
) -> Period | None:
    for token in tokens:
        month = words.months.get(token)
        if month is None:
            continue
        if year is None:
            year = today.year if month <= today.month else today.year - 1
        return month_period(year, month)
    return None


def _explicit_year(tokens: tuple[str, ...]) -> int | None:
    for token in tokens:
        if _YEAR.match(token):
            return int(token)
    return None


def _from_words(
    text: str, today: date, hemisphere: Hemisphere, words: PeriodWords
) -> Period | None:
    tokens = tokenize(_strip_dates(text))
    year = _explicit_year(tokens)
    named = _month_named(tokens, year, today, words)
    if named is not None:
        return named
    present = set(tokens)
    last = bool(present & words.last)
    this = bool(present & words.this)
    if present & words.week:
        if last:
            return calendar_week(today, weeks_back=1)
        return calendar_week(today) if this else last_days(today, 7)
    if present & words.month:
        return previous_month(today) if last else current_month(today)
    if present & words.season:
        if year is not None:
            return season_period(year, hemisphere)
        season = current_season(today, hemisphere)
        if last:
            return season_period(season.end.year - 1, hemisphere)
        return season
    if present & words.year:
        if year is not None:
            return year_period(year)
        return year_period(today.year - 1 if last else today.year)
    if year is not None:
        return year_period(year)
    return None


# --- Public API --------------------------------------------------------------------------


def find_period(text: str, today: date, *, hemisphere: Hemisphere = "north") -> Period | None:
    """The period ``text`` names, or None when it names none."""
    words = load_words()
    hits = _date_hits(text)
    if hits:
        found = _from_dates(text, hits, today, words)
        if found is not None:
            return found
    return _from_words(fold(text), today, hemisphere, words)


def parse_period(
    text: str,
    today: date,
    *,
    default: DefaultKind = "month",
    hemisphere: Hemisphere = "north",
) -> Period:
    """The period ``text`` names, else the ``default`` one around ``today``."""
    found = find_period(text, today, hemisphere=hemisphere)
    return found if found is not None else default_period(default, today, hemisphere)
