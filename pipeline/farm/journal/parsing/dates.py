"""The parser's date pass: which day an operation is on.

Dates written in numbers come from :func:`pipeline.farm.words.dates.numeric_dates`, the
words from ``dates.toml`` (:class:`~pipeline.farm.words.dates.DateWords`); this pass finds
them among the message's free tokens: 12.05, 03.06.2026, 2026-05-12, "12 травня",
"May 12", вчора, "через 2 дні", "2 дні тому", weekdays ("наступного понеділка").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from pipeline.farm.journal.parsing.ordinals import ordinal_at
from pipeline.farm.journal.parsing.scan import Scan
from pipeline.farm.words.dates import DateWords, numeric_dates

__all__ = ["DateHit", "find_dates", "resolve_date"]

Direction = Literal["next", "last"] | None

_MIN_YEAR, _MAX_YEAR = 1990, 2100
_MAX_DAY = 31


@dataclass(frozen=True, slots=True)
class DateHit:
    """A date found at token ``pos``: fixed, or a weekday resolved once status is known."""

    pos: int
    value: date | None = None
    weekday: int | None = None
    direction: Direction = None
    #: A day and month without a year ("12.05", "12 травня"): a done operation
    #: dated ahead of today was last year's.
    floating: bool = False
    #: A day without a month ("двадцять третього"): this month's, or the month
    #: before when a done operation would be ahead of today (the month after for a plan
    #: already behind it).
    day_only: bool = False


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _numeric_dates(scan: Scan, today: date) -> list[DateHit]:
    hits: list[DateHit] = []
    for found in numeric_dates(scan.text):
        span = scan.tokens_in(found.start, found.end)
        value = found.on(today.year) if span is not None else None
        if span is not None and value is not None:
            scan.claim(*span, "date")
            hits.append(DateHit(span[0], value, floating=found.year is None))
    return hits


def _month_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    """ "12 травня", "12-го мая 2026", "May 12", "12th of May"."""
    hits: list[DateHit] = []
    for i in range(len(scan)):
        if not (scan.free(i) and _day_number(scan, i)):
            continue
        j = i + 1
        while j < len(scan) and scan.free(j) and scan.norms[j] in words.day_suffixes:
            j += 1
        month = words.months.label(scan.norms[j]) if scan.free(j) else None
        start, end = i, j + 1
        if month is None and i > 0 and scan.free(i - 1):
            month, start, end = words.months.label(scan.norms[i - 1]), i - 1, i + 1
        if month is None:
            continue
        year, year_end = _year_after(scan, end, today.year)
        value = _safe_date(year, int(month), int(scan.norms[i]))
        if value is not None:
            scan.claim(start, year_end, "date")
            hits.append(DateHit(start, value, floating=year_end == end))
    return hits


def _ordinal_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    """ "п'ятого травня", "вісімнадцятого числа", "двадцять третього": a day said as
    an ordinal, with its month, with "числа", or alone in the genitive."""
    hits: list[DateHit] = []
    for i in range(len(scan)):
        found = ordinal_at(scan, words.numbers, i)
        if found is None or not 1 <= found.value <= _MAX_DAY:
            continue
        end = found.end
        month = words.months.label(scan.norms[end]) if scan.free(end) else None
        if month is not None:
            year, year_end = _year_after(scan, end + 1, today.year)
            value = _safe_date(year, int(month), found.value)
            if value is not None:
                scan.claim(found.start, year_end, "date")
                hits.append(DateHit(found.start, value, floating=year_end == end + 1))
            continue
        noun = scan.free(end) and words.day_nouns is not None and scan.norms[end] in words.day_nouns
        if not (noun or _day_alone(scan, words, found.start, i)):
            continue
        value = _safe_date(today.year, today.month, found.value)
        if value is not None:
            scan.claim(found.start, end + noun, "date")
            hits.append(DateHit(found.start, value, day_only=True))
    return hits


def _day_alone(scan: Scan, words: DateWords, start: int, last: int) -> bool:
    """A genitive ordinal that no preposition governs: "двадцять третього посіяли"."""
    if not scan.norms[last].endswith(words.ordinal_day_endings):
        return False
    before = scan.norm(start - 1)
    blocked = words.ordinal_day_not_after
    return not (before and blocked is not None and before in blocked and not scan.gap(start))


def _day_number(scan: Scan, i: int) -> bool:
    norm = scan.norms[i]
    return norm.isdigit() and 1 <= int(norm) <= _MAX_DAY


def _year_after(scan: Scan, i: int, default: int) -> tuple[int, int]:
    if scan.free(i) and scan.norms[i].isdigit() and _MIN_YEAR <= int(scan.norms[i]) <= _MAX_YEAR:
        return int(scan.norms[i]), i + 1
    return default, i


def _relative_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    hits: list[DateHit] = []
    for i in range(len(scan)):
        if not scan.free(i):
            continue
        hit = words.relative.match_at(scan.norms, i)
        if hit is not None and scan.all_free(i, i + hit[1]):
            scan.claim(i, i + hit[1], "date")
            hits.append(DateHit(i, today + timedelta(days=int(hit[0]))))
    return hits


def _offset_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    """ "через 2 дні", "через тиждень", "in 3 days" ahead; "2 дні тому", "3 days ago" back."""
    hits: list[DateHit] = []
    for i in range(len(scan)):
        if not scan.free(i):
            continue
        count, j = 1, i
        ahead = scan.norms[i] in words.offset_ahead
        if ahead:
            j += 1
        if scan.free(j) and scan.norms[j].isdigit():
            count, j = int(scan.norms[j]), j + 1
        unit = words.offset_units.label(scan.norms[j]) if scan.free(j) else None
        if unit is None:
            continue
        back = scan.free(j + 1) and scan.norms[j + 1] in words.offset_back
        if ahead == back:
            continue
        days = count * int(unit) * (1 if ahead else -1)
        scan.claim(i, j + 2 if back else j + 1, "date")
        hits.append(DateHit(i, today + timedelta(days=days)))
    return hits


def _weekday_dates(scan: Scan, words: DateWords) -> list[DateHit]:
    hits: list[DateHit] = []
    for i in range(len(scan)):
        weekday = words.weekdays.label(scan.norms[i]) if scan.free(i) else None
        if weekday is None:
            continue
        start: int = i
        direction: Direction = None
        before = scan.norms[i - 1] if scan.free(i - 1) else ""
        if before in words.next or before in words.future_prepositions:
            start, direction = i - 1, "next"
        elif before in words.last:
            start, direction = i - 1, "last"
        scan.claim(start, i + 1, "date")
        hits.append(DateHit(start, weekday=int(weekday), direction=direction))
    return hits


def _period_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    """ "на наступному тижні", "next week" (its Monday), "наступного місяця" (its first
    day), "цього тижня" (today): a period named as the day of an operation."""
    hits: list[DateHit] = []
    for i in range(len(scan) - 1):
        if not scan.all_free(i, i + 2):
            continue
        unit = words.span_units.label(scan.norms[i + 1])
        if unit not in ("week", "month"):
            continue
        norm = scan.norms[i]
        if norm in words.coming:
            first = _next_unit_start(today, unit)
        elif norm in words.this or norm in words.recent:
            first = today
        else:
            continue
        scan.claim(i, i + 2, "date")
        hits.append(DateHit(i, first))
    return hits


def _next_unit_start(today: date, unit: str) -> date:
    if unit == "week":
        return today + timedelta(days=7 - today.weekday())
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    return date(year, month, 1)


def find_dates(scan: Scan, words: DateWords, today: date) -> list[DateHit]:
    hits = [
        *_numeric_dates(scan, today),
        *_month_dates(scan, words, today),
        *_ordinal_dates(scan, words, today),
        *_relative_dates(scan, words, today),
        *_offset_dates(scan, words, today),
        *_period_dates(scan, words, today),
        *_weekday_dates(scan, words),
    ]
    return sorted(hits, key=lambda hit: hit.pos)


def resolve_date(hit: DateHit | None, today: date, ahead: bool, done: bool = False) -> date:
    """A weekday is the most recent one (today included), or the next one when the
    operation is ahead; "наступного"/"минулого" fix the direction. A done operation
    dated ahead without a year ("посіяли 10.10" written in May) was last year's."""
    if hit is None:
        return today
    if hit.value is not None and hit.day_only:
        return _month_shifted(hit.value, today, ahead, done)
    if hit.value is not None:
        if hit.floating and done and not ahead and hit.value > today:
            return _safe_date(hit.value.year - 1, hit.value.month, hit.value.day) or hit.value
        return hit.value
    weekday = hit.weekday if hit.weekday is not None else today.weekday()
    if hit.direction == "next" or (ahead and hit.direction != "last"):
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    if hit.direction == "last":
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    return today - timedelta(days=(today.weekday() - weekday) % 7)


def _month_shifted(value: date, today: date, ahead: bool, done: bool) -> date:
    """A day of this month, or of the one before (done, but ahead of today) or after
    (planned, but already behind)."""
    if value > today and done and not ahead:
        year, month = (value.year - 1, 12) if value.month == 1 else (value.year, value.month - 1)
        return _safe_date(year, month, value.day) or value
    if value < today and ahead:
        year, month = (value.year + 1, 1) if value.month == 12 else (value.year, value.month + 1)
        return _safe_date(year, month, value.day) or value
    return value
