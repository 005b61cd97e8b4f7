"""The period parser: Ukrainian, Russian and English ways to name a period."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.dates import (
    DateWords,
    Period,
    current_season,
    find_period,
    parse_period,
    previous_month,
)
from pipeline.grammar import Grammar

TODAY = date(2025, 5, 14)  # a Wednesday
WORDS = DateWords.load(Grammar.load())


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("звіт в excel за жовтень", date(2024, 10, 1), date(2024, 10, 31)),
        ("план/факт за квітень", date(2025, 4, 1), date(2025, 4, 30)),
        ("зроби звіт за травень", date(2025, 5, 1), date(2025, 5, 31)),
        ("отчёт за октябрь", date(2024, 10, 1), date(2024, 10, 31)),
        ("план факт за апрель", date(2025, 4, 1), date(2025, 4, 30)),
        ("excel report for October", date(2024, 10, 1), date(2024, 10, 31)),
        ("plan vs fact for april", date(2025, 4, 1), date(2025, 4, 30)),
        ("звіт за жовтень 2023", date(2023, 10, 1), date(2023, 10, 31)),
        ("звіт у жовтні", date(2024, 10, 1), date(2024, 10, 31)),
        ("за лютий", date(2025, 2, 1), date(2025, 2, 28)),
    ],
)
def test_month_names(text: str, start: date, end: date) -> None:
    assert find_period(text, TODAY, WORDS) == Period(start, end, "month")


@pytest.mark.parametrize(
    "text",
    ["звіт за минулий місяць", "отчет за прошлый месяц", "report for last month"],
)
def test_last_month(text: str) -> None:
    assert find_period(text, TODAY, WORDS) == Period(date(2025, 4, 1), date(2025, 4, 30), "month")


@pytest.mark.parametrize("text", ["за цей місяць", "за этот месяц", "this month", "за місяць"])
def test_this_month(text: str) -> None:
    assert find_period(text, TODAY, WORDS) == Period(date(2025, 5, 1), date(2025, 5, 31), "month")


@pytest.mark.parametrize("text", ["графік вологості за тиждень", "за неделю", "for the week"])
def test_a_week_is_the_last_seven_days(text: str) -> None:
    period = find_period(text, TODAY, WORDS)
    assert period == Period(date(2025, 5, 8), date(2025, 5, 14), "week")
    assert period.days == 7


def test_last_and_this_calendar_week() -> None:
    assert find_period("за минулий тиждень", TODAY, WORDS) == Period(
        date(2025, 5, 5), date(2025, 5, 11), "week"
    )
    assert find_period("this week", TODAY, WORDS) == Period(
        date(2025, 5, 12), date(2025, 5, 18), "week"
    )


@pytest.mark.parametrize("text", ["підсумки за сезон", "итоги за сезон", "season summary"])
def test_season(text: str) -> None:
    assert find_period(text, TODAY, WORDS) == Period(date(2025, 1, 1), date(2025, 12, 31), "season")


def test_last_and_numbered_season() -> None:
    assert find_period("за минулий сезон", TODAY, WORDS) == Period(
        date(2024, 1, 1), date(2024, 12, 31), "season"
    )
    assert find_period("сезон 2023", TODAY, WORDS) == Period(
        date(2023, 1, 1), date(2023, 12, 31), "season"
    )


def test_southern_season_runs_july_to_june() -> None:
    assert current_season(date(2025, 8, 1), "south") == Period(
        date(2025, 7, 1), date(2026, 6, 30), "season"
    )
    assert find_period("season", TODAY, WORDS, hemisphere="south") == Period(
        date(2024, 7, 1), date(2025, 6, 30), "season"
    )


@pytest.mark.parametrize(
    "text",
    [
        "з 01.04 по 30.04",
        "с 01.04 по 30.04",
        "from 01.04 to 30.04",
        "01.04-30.04",
        "з 1.04.2025 по 30.04.2025",
        "з 01/04/25 по 30/04/25",
        "from 2025-04-01 to 2025-04-30",
    ],
)
def test_date_ranges(text: str) -> None:
    assert find_period(text, TODAY, WORDS) == Period(date(2025, 4, 1), date(2025, 4, 30), "range")


def test_range_still_ahead_is_last_year() -> None:
    assert find_period("з 01.11 по 30.11", TODAY, WORDS) == Period(
        date(2024, 11, 1), date(2024, 11, 30), "range"
    )


def test_range_over_new_year() -> None:
    assert find_period("з 01.12 по 31.01", TODAY, WORDS) == Period(
        date(2024, 12, 1), date(2025, 1, 31), "range"
    )


def test_one_date() -> None:
    assert find_period("з 01.05", TODAY, WORDS) == Period(date(2025, 5, 1), TODAY, "range")
    assert find_period("за 03.05", TODAY, WORDS) == Period(
        date(2025, 5, 3), date(2025, 5, 3), "day"
    )


def test_year() -> None:
    assert find_period("звіт за 2024 рік", TODAY, WORDS) == Period(
        date(2024, 1, 1), date(2024, 12, 31), "year"
    )
    assert find_period("за минулий рік", TODAY, WORDS) == Period(
        date(2024, 1, 1), date(2024, 12, 31), "year"
    )


@pytest.mark.parametrize(
    "text",
    ["зроби звіт в excel", "запиши полив 20 мм на полі 3", "поле 2", "", "має бути дощ"],
)
def test_no_period(text: str) -> None:
    assert find_period(text, TODAY, WORDS) is None


def test_invalid_dates_are_ignored() -> None:
    assert find_period("з 31.02 по 40.13", TODAY, WORDS) is None


def test_defaults() -> None:
    assert parse_period("звіт", TODAY, WORDS) == Period(
        date(2025, 5, 1), date(2025, 5, 31), "month"
    )
    assert parse_period("підсумки", TODAY, WORDS, default="season") == current_season(TODAY)
    assert parse_period("графік", TODAY, WORDS, default="week").days == 7
    assert parse_period("за минулий місяць", TODAY, WORDS, default="season") == previous_month(
        TODAY
    )


def test_december_and_january_edges() -> None:
    assert previous_month(date(2025, 1, 10)) == Period(
        date(2024, 12, 1), date(2024, 12, 31), "month"
    )
    assert find_period("за грудень", date(2025, 12, 31), WORDS) == Period(
        date(2025, 12, 1), date(2025, 12, 31), "month"
    )


@pytest.mark.parametrize("text", ["finished harvesting field 2, 5.8 t/ha", "pH 6.5", "qwen2.5:7b"])
def test_a_decimal_number_is_not_a_date(text: str) -> None:
    """Without a year a month after a dot has two digits, as in the operation parser."""
    assert find_period(text, TODAY, WORDS) is None


def test_slashes_that_cannot_be_day_first_are_month_first() -> None:
    # "05/10" is the 5th of October (still ahead in May, so last year's) ...
    assert find_period("spraying on 05/10", TODAY, WORDS) == Period(
        date(2024, 10, 5), date(2024, 10, 5), "day"
    )
    # ... "05/13" cannot be day first: the 13th of May.
    assert find_period("spraying on 05/13", TODAY, WORDS) == Period(
        date(2025, 5, 13), date(2025, 5, 13), "day"
    )
