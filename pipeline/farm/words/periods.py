"""Periods as dates: months, weeks, seasons, spans counted back from a day.

Pure date arithmetic for the period reader (:mod:`pipeline.farm.words.dates`, which
re-exports all of it) and whoever builds a period by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from pipeline.farm.words.numeric_dates import safe_date

__all__ = [
    "DefaultKind",
    "Hemisphere",
    "Period",
    "PeriodKind",
    "Unit",
    "add_months",
    "calendar",
    "calendar_week",
    "counted_back",
    "current_month",
    "current_season",
    "default_period",
    "last_days",
    "month_period",
    "previous_month",
    "season_period",
    "since_start",
    "year_period",
]

PeriodKind = Literal["day", "week", "month", "season", "year", "range"]
#: When a request names no period: the calendar month, the season, the last 7 days,
#: or the last month up to today (a report: nothing ahead of today, yesterday in).
DefaultKind = Literal["month", "season", "week", "recent"]
Hemisphere = Literal["north", "south"]
Unit = Literal["day", "week", "month", "year"]

_DAYS_IN_WEEK = 7
_MONTHS_IN_YEAR = 12


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
    if kind == "recent":
        return counted_back(today, 1, "month")
    return current_month(today)


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later (earlier when negative), clamped to the month's end."""
    index = day.year * _MONTHS_IN_YEAR + day.month - 1 + months
    year, month = divmod(index, _MONTHS_IN_YEAR)
    for last in (day.day, 30, 29, 28):
        found = safe_date(year, month + 1, min(day.day, last))
        if found is not None:
            return found
    raise ValueError(day)  # pragma: no cover - day 28 exists in every month


def counted_back(today: date, count: float, unit: Unit) -> Period:
    """``count`` units up to today: "за 2 тижні" is 14 days, "за 3 місяці" from the day
    after the same date three months ago, "за пів року" six months."""
    if unit in ("day", "week"):
        days = max(1, round(count * (_DAYS_IN_WEEK if unit == "week" else 1)))
        return last_days(today, days) if days > 1 else Period(today, today, "day")
    months = max(1, round(count * (_MONTHS_IN_YEAR if unit == "year" else 1)))
    return Period(add_months(today, -months) + timedelta(days=1), today, "range")


def calendar(today: date, unit: Unit, shift: int, hemisphere: Hemisphere) -> Period:
    """The calendar week / month / year ``shift`` units from the current one."""
    if unit == "week":
        return calendar_week(today, weeks_back=-shift)
    if unit == "month":
        first = add_months(today.replace(day=1), shift)
        return month_period(first.year, first.month)
    if unit == "year":
        return year_period(today.year + shift)
    return Period(today + timedelta(days=shift), today + timedelta(days=shift), "day")


def since_start(today: date, unit: Unit | Literal["season"], hemisphere: Hemisphere) -> Period:
    if unit == "season":
        start = current_season(today, hemisphere).start
    else:
        start = calendar(today, unit, 0, hemisphere).start
    return Period(start, today, "range")
