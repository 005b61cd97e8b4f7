"""Dates written in numbers: ``2026-05-12``; ``12.05.2026``, ``12/05/26``,
``12-05-2026`` (one separator throughout); ``12.05`` or ``12/05`` without a year.

Without a year a month after a dot needs two digits ("1.5 л" is a quantity), and
"05/20" with slashes, which cannot be day first, is read month first. The operation
parser and the period reader (:mod:`pipeline.farm.words.dates`) both use this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

__all__ = ["NumericDate", "numeric_dates", "safe_date"]

_CENTURY = 2000
#: A leap year: "29.02" without a year is a date.
_ANY_LEAP_YEAR = 2000


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
        return safe_date(self.year or year, self.month, self.day)


def safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _day_month(day: int, month: int, slashes: bool) -> tuple[int, int] | None:
    """Day first; "05/20" with slashes can only be the American month first."""
    if safe_date(_ANY_LEAP_YEAR, month, day) is not None:
        return day, month
    if slashes and safe_date(_ANY_LEAP_YEAR, day, month) is not None:
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
    if found is None or safe_date(year or _ANY_LEAP_YEAR, found[1], found[0]) is None:
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
