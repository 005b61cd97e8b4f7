"""Dates and periods in a farmer's words: one reader for the operation parser and for
the period of a report, plan/fact or chart request.

The words (months, weekdays, "вчора", "за минулий місяць" ...) are data in
``pipeline/rules/dates.toml`` (:class:`~pipeline.farm.words.datewords.DateWords`), matched
through :mod:`pipeline.grammar`; numbers written as dates are read by
:mod:`pipeline.farm.words.numeric_dates`, numbers said in words by
:mod:`pipeline.farm.words.numbers`. The operation parser takes them for its date pass
(:mod:`pipeline.farm.journal.parsing.dates`); :func:`find_period` turns them into a
:class:`Period`.

Rules of a period (a farmer asks about the past, so a bare month is the latest one
that started, and a span counted back ends today):

* "за тиждень", "weekly", "за останній тиждень", "past week" are the last 7 days up
  to today; "за місяць", "monthly", "past month" the last month up to today (15.04 ..
  14.05); "за 30 днів", "за 2 тижні", "за 3 місяці", "last 10 days" likewise count
  back from today;
* "минулий тиждень" / "last week" is the previous Monday..Sunday, "цей тиждень" this
  Monday..Sunday, "наступного тижня" the next one; the same for months; "з початку
  місяця" runs from its first day to today;
* a month name is that month of the current year, or of last year when it has not
  begun yet ("за жовтень" in March is last October); an explicit year wins;
* the season is the calendar year in the northern hemisphere (Ukrainian farms keep
  their books by calendar year), July..June in the southern one; "за рік" is the
  calendar year;
* two dates make a range ("з 1 по 15 травня", "01.04-30.04", "from May 1 to 15"), a
  missing year is the current one (last year when the start is still ahead); one date
  after "з"/"from" runs to today; one date alone is that day, as are "вчора",
  "два дні тому", "3 days ago".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from pipeline.farm.words.datewords import DEFAULT_DATES, DateWords
from pipeline.farm.words.numbers import format_number
from pipeline.farm.words.numeric_dates import NumericDate, numeric_dates, safe_date
from pipeline.farm.words.periods import (
    DefaultKind,
    Hemisphere,
    Period,
    PeriodKind,
    Unit,
    add_months,
    calendar,
    calendar_week,
    counted_back,
    current_month,
    current_season,
    default_period,
    last_days,
    month_period,
    previous_month,
    season_period,
    since_start,
    year_period,
)
from pipeline.grammar import TermSet
from pipeline.text import is_number, tokenize

__all__ = [
    "DEFAULT_DATES",
    "DateWords",
    "DefaultKind",
    "Hemisphere",
    "NumericDate",
    "Period",
    "add_months",
    "calendar_week",
    "current_month",
    "current_season",
    "default_period",
    "find_period",
    "last_days",
    "month_period",
    "numeric_dates",
    "parse_period",
    "previous_month",
    "season_period",
    "with_spoken_numbers",
    "year_period",
]

_YEAR = re.compile(r"^(19|20)\d\d$")
_MAX_DAY = 31
_DAYS_IN_WEEK = 7
_MONTHS_IN_YEAR = 12


def with_spoken_numbers(tokens: Sequence[str], words: DateWords) -> tuple[str, ...]:
    """Tokens with numbers said in words written as numbers ("два тижні" -> "2 тижні")."""

    def is_unit(found: Sequence[str], i: int) -> bool:
        return i < len(found) and (found[i] in words.span_units or found[i] in words.offset_units)

    out = list(tokens)
    for span in reversed(words.numbers.spans(tokens, is_unit)):
        out[span.start : span.end] = [format_number(span.value)]
    return tuple(out)


# =========================================================================== days


@dataclass(frozen=True, slots=True)
class _Mention:
    """A day named in numbers or words; ``since`` when "з"/"from" stands before it."""

    day: int
    month: int
    year: int | None
    since: bool = False

    def on(self, year: int) -> date | None:
        return safe_date(self.year or year, self.month, self.day)


def _from_mentions(mentions: Sequence[_Mention], today: date) -> Period | None:
    first = mentions[0]
    if len(mentions) >= 2:
        return _mentioned_range(first, mentions[1], today)
    day = first.on(today.year)
    if day is not None and first.year is None and day > today:
        day = first.on(today.year - 1)
    if day is None:
        return None
    if first.since and day <= today:
        return Period(day, today, "range")
    return Period(day, day, "day")


def _mentioned_range(first: _Mention, second: _Mention, today: date) -> Period | None:
    """Two days named: the range between them, the years filled in backwards."""
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


def _numeric_mentions(text: str, hits: Sequence[NumericDate], words: DateWords) -> list[_Mention]:
    out: list[_Mention] = []
    for hit in hits:
        before = tokenize(text[: hit.start])
        since = bool(before) and before[-1] in words.since
        out.append(_Mention(hit.day, hit.month, hit.year, since))
    return out


def _classes(tokens: Sequence[str], words: DateWords) -> str:
    """One letter a token: D a day number, M a month, Y a year, T "по"/"to", S "з"/
    "from", s a day suffix ("1st", "15-го"), x anything else."""
    out: list[str] = []
    for token in tokens:
        if _YEAR.match(token):
            out.append("Y")
        elif token.isdigit() and 1 <= int(token) <= _MAX_DAY:
            out.append("D")
        elif token in words.months:
            out.append("M")
        elif token in words.range_to:
            out.append("T")
        elif token in words.since:
            out.append("S")
        elif token in words.day_suffixes:
            out.append("s")
        else:
            out.append("x")
    return "".join(out)


# A day with its month, either order, a suffix allowed after the day: "12 травня",
# "12-го мая 2025", "May 12", "1st of May".
_DAY = r"(?:Ds*M|MDs*)Y?"
_WORD_DATES = (
    # "з 1 по 15 травня", "1-15 травня", "from 1 to 15 May 2025"
    re.compile(r"(S)?(D)s*T?(D)s*(M)(Y)?"),
    # "з 25 квітня по 5 травня", "from May 1 to May 15"
    re.compile(rf"(S)?({_DAY})T?({_DAY})"),
    # "from May 1 to 15", "May 1-15"
    re.compile(r"(S)?(M)(D)s*T?(D)s*(Y)?"),
    re.compile(rf"(S)?({_DAY})"),
)


def _word_mentions(tokens: Sequence[str], words: DateWords) -> list[_Mention]:
    classes = _classes(tokens, words)
    for pattern in _WORD_DATES:
        match = pattern.search(classes)
        if match is not None:
            return _read_word_dates(tokens, classes, match, words)
    return []


def _read_word_dates(
    tokens: Sequence[str], classes: str, match: re.Match[str], words: DateWords
) -> list[_Mention]:
    since = match.group(1) is not None
    span = range(match.start(), match.end())
    days = [int(tokens[i]) for i in span if classes[i] == "D"]
    months = [int(words.months.label(tokens[i]) or 0) for i in span if classes[i] == "M"]
    years = [int(tokens[i]) for i in span if classes[i] == "Y"]
    year = years[-1] if years else None
    if len(days) == len(months):
        pairs = list(zip(days, months, strict=True))
    else:  # "з 1 по 15 травня": one month for both days
        pairs = [(day, months[0]) for day in days]
    first_year = years[0] if len(years) == len(pairs) else year
    out = [_Mention(pairs[0][0], pairs[0][1], first_year, since)]
    out.extend(_Mention(day, month, year) for day, month in pairs[1:])
    return out


def _relative_day(tokens: Sequence[str], today: date, words: DateWords) -> Period | None:
    """ "вчора", "сьогоднішній звіт", "2 дні тому", "a week ago": one day."""
    found: list[date] = []
    for i, token in enumerate(tokens):
        offset = words.relative.label(token)
        if offset is not None and (offset != "0" or token in words.daily):
            found.append(today + timedelta(days=int(offset)))
            continue
        weekday = words.weekdays.label(token)
        if weekday is not None:
            found.append(_weekday_day(tokens, i, int(weekday), today, words))
            continue
        if token in words.offset_back and i > 0:
            back = _counted_back_day(tokens, i, today, words)
            if back is not None:
                found.append(back)
    if not found:
        return None
    return _day_or_range(found, tokens, today, words)


def _weekday_day(
    tokens: Sequence[str], i: int, weekday: int, today: date, words: DateWords
) -> date:
    """ "за понеділок": the latest one; "минулого понеділка" a week before today's."""
    back = (today.weekday() - weekday) % _DAYS_IN_WEEK
    if i > 0 and tokens[i - 1] in words.last:
        back += _DAYS_IN_WEEK if back == 0 else 0
    return today - timedelta(days=back)


def _counted_back_day(tokens: Sequence[str], i: int, today: date, words: DateWords) -> date | None:
    """ "2 дні тому", "a week ago": the unit before the "ago" word at ``i``, counted
    back (once when no number stands before it)."""
    unit = _unit(tokens[i - 1], words)
    if unit is None:
        return None
    count = int(tokens[i - 2]) if i > 1 and tokens[i - 2].isdigit() else 1
    return _back(today, count, unit)


def _day_or_range(
    found: Sequence[date], tokens: Sequence[str], today: date, words: DateWords
) -> Period:
    """One day found is that day (or since it, after "з"/"since"); several a range."""
    if len(found) == 1 and tokens and tokens[0] in words.since and found[0] < today:
        return Period(found[0], today, "range")  # "з понеділка", "since yesterday"
    kind: PeriodKind = "day" if len(found) == 1 else "range"
    return Period(min(found), max(found), kind)


def _back(today: date, count: int, unit: Unit) -> date:
    if unit == "day":
        return today - timedelta(days=count)
    if unit == "week":
        return today - timedelta(weeks=count)
    return add_months(today, -count * (_MONTHS_IN_YEAR if unit == "year" else 1))


def _unit(token: str, words: DateWords) -> Unit | None:
    label = words.span_units.label(token)
    if label in ("day", "week", "month", "year"):
        return label  # type: ignore[return-value]
    return None


# =========================================================================== spans


def _span(
    tokens: Sequence[str], today: date, hemisphere: Hemisphere, words: DateWords
) -> Period | None:
    """ "за 2 тижні", "last 10 days", "за останній місяць", "минулого тижня",
    "наступного місяця", "з початку року", "weekly"."""
    for i, token in enumerate(tokens):
        unit = _unit(token, words)
        if unit is None or (i + 1 < len(tokens) and tokens[i + 1] in words.offset_back):
            continue  # "2 дні тому" is one day
        found = _span_of(tokens, i, unit, today, hemisphere, words)
        if found is not None:
            return found
    return None


def _span_of(
    tokens: Sequence[str],
    i: int,
    unit: Unit,
    today: date,
    hemisphere: Hemisphere,
    words: DateWords,
) -> Period | None:
    """The period the unit word at ``i`` names with the word before it; None when
    it names none ("за 2024 рік" names a year, not a span)."""
    before = tokens[i - 1] if i > 0 else ""
    count = float(before.replace(",", ".")) if is_number(before) else 0.0
    if count > 0 and not _YEAR.match(before):
        return counted_back(today, count, unit)
    if unit == "year" and any(_YEAR.match(t) for t in tokens):
        return None  # "за 2024 рік" names a year
    if _aftersince_start(tokens, i, words):
        return since_start(today, unit, hemisphere)
    if before in words.last:
        return calendar(today, unit, -1, hemisphere)
    if before in words.this:
        return calendar(today, unit, 0, hemisphere)
    if before in words.coming:
        return calendar(today, unit, 1, hemisphere)
    if before in words.recent or unit in ("day", "week", "month"):
        return counted_back(today, 1, unit)
    return calendar(today, unit, 0, hemisphere)


def _aftersince_start(tokens: Sequence[str], i: int, words: DateWords) -> bool:
    for start in range(max(0, i - 5), i):
        hit = words.since_start.match_at(tokens, start)
        if hit is not None and start + hit[1] >= i - 1:
            return True
    return False


def _said(tokens: Sequence[str], terms: TermSet) -> bool:
    return any(token in terms for token in tokens)


def _from_words(
    tokens: Sequence[str], today: date, hemisphere: Hemisphere, words: DateWords
) -> Period | None:
    year = next((int(token) for token in tokens if _YEAR.match(token)), None)
    months = [int(m) for t in tokens if (m := words.months.label(t)) is not None]
    if months:
        return _from_months(months, year, tokens, today, words)
    if _said(tokens, words.season):
        return _from_season(year, tokens, today, hemisphere, words)
    found = _span(tokens, today, hemisphere, words) or _relative_day(tokens, today, words)
    if found is not None:
        return found
    if _said(tokens, words.daily):
        return Period(today, today, "day")
    return year_period(year) if year is not None else None


def _from_months(
    months: Sequence[int], year: int | None, tokens: Sequence[str], today: date, words: DateWords
) -> Period:
    """A month named: the latest one that started (or of the year named), to the
    second month named, or since it to today after "з"/"since"."""
    if year is None:
        year = today.year if months[0] <= today.month else today.year - 1
    first = month_period(year, months[0])
    if len(months) > 1:  # "з квітня по травень"
        last = month_period(year if months[1] >= months[0] else year + 1, months[1])
        return Period(first.start, last.end, "range")
    if _said(tokens, words.since):
        return Period(first.start, max(first.start, today), "range")
    return first


def _from_season(
    year: int | None,
    tokens: Sequence[str],
    today: date,
    hemisphere: Hemisphere,
    words: DateWords,
) -> Period:
    """The season: of the year named, since its start, the last one or this one."""
    if year is not None:
        return season_period(year, hemisphere)
    if any(_aftersince_start(tokens, i, words) for i in range(len(tokens))):
        return since_start(today, "season", hemisphere)
    season = current_season(today, hemisphere)
    previous = _said(tokens, words.last)
    return season_period(season.end.year - 1, hemisphere) if previous else season


def _without(text: str, hits: Sequence[NumericDate]) -> str:
    for hit in reversed(hits):
        text = text[: hit.start] + " " + text[hit.end :]
    return text


def find_period(
    text: str, today: date, words: DateWords, *, hemisphere: Hemisphere = "north"
) -> Period | None:
    """The period ``text`` names, or None when it names none."""
    hits = numeric_dates(text)
    if hits:
        found = _from_mentions(_numeric_mentions(text, hits, words), today)
        if found is not None:
            return found
    tokens = with_spoken_numbers(tokenize(_without(text, hits)), words)
    mentions = _word_mentions(tokens, words)
    if mentions:
        found = _from_mentions(mentions, today)
        if found is not None:
            return found
    return _from_words(tokens, today, hemisphere, words)


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
