"""The period parser: Ukrainian, Russian and English ways to name a period."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.reports import period_text
from pipeline.farm.words.dates import (
    DateWords,
    Period,
    add_months,
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


@pytest.mark.parametrize("text", ["за цей місяць", "за этот месяц", "this month"])
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


# =========================================================================== the table
# Every way of naming a period the issue lists, and more, in uk / ru / en; TODAY is
# Wednesday 2025-05-14. "за тиждень" and "weekly" are the last 7 days up to today, a
# span counted in months runs from the day after the same date that many months ago.

D = date
PERIODS: list[tuple[str, date, date]] = [
    # the last 7 days
    ("за тиждень", D(2025, 5, 8), TODAY),
    ("графік вологості за тиждень", D(2025, 5, 8), TODAY),
    ("weekly report", D(2025, 5, 8), TODAY),
    ("за неделю", D(2025, 5, 8), TODAY),
    ("за останній тиждень", D(2025, 5, 8), TODAY),
    ("for the past week", D(2025, 5, 8), TODAY),
    ("last 7 days", D(2025, 5, 8), TODAY),
    ("за 7 днів", D(2025, 5, 8), TODAY),
    # a month back
    ("за місяць", D(2025, 4, 15), TODAY),
    ("за месяц", D(2025, 4, 15), TODAY),
    ("monthly report", D(2025, 4, 15), TODAY),
    ("за останній місяць", D(2025, 4, 15), TODAY),
    ("за 30 днів", D(2025, 4, 15), TODAY),
    ("за последние 30 дней", D(2025, 4, 15), TODAY),
    # counted spans, in figures and in words
    ("за 2 тижні", D(2025, 5, 1), TODAY),
    ("за два тижні", D(2025, 5, 1), TODAY),
    ("за две недели", D(2025, 5, 1), TODAY),
    ("past 2 weeks", D(2025, 5, 1), TODAY),
    ("за 3 місяці", D(2025, 2, 15), TODAY),
    ("за три месяца", D(2025, 2, 15), TODAY),
    ("last three months", D(2025, 2, 15), TODAY),
    ("за пів року", D(2024, 11, 15), TODAY),
    ("за 10 днів", D(2025, 5, 5), TODAY),
    ("за останні 3 дні", D(2025, 5, 12), TODAY),
    ("за пару днів", D(2025, 5, 13), TODAY),
    # months by name
    ("за жовтень", D(2024, 10, 1), D(2024, 10, 31)),
    ("за октябрь", D(2024, 10, 1), D(2024, 10, 31)),
    ("for October", D(2024, 10, 1), D(2024, 10, 31)),
    ("за квітень", D(2025, 4, 1), D(2025, 4, 30)),
    ("з квітня по травень", D(2025, 4, 1), D(2025, 5, 31)),
    # day ranges in words
    ("з 1 по 15 травня", D(2025, 5, 1), D(2025, 5, 15)),
    ("с 1 по 15 мая", D(2025, 5, 1), D(2025, 5, 15)),
    ("from 1 to 15 May", D(2025, 5, 1), D(2025, 5, 15)),
    ("May 1-15", D(2025, 5, 1), D(2025, 5, 15)),
    ("1-15 травня", D(2025, 5, 1), D(2025, 5, 15)),
    ("з 25 квітня по 5 травня", D(2025, 4, 25), D(2025, 5, 5)),
    ("from May 1 to May 10", D(2025, 5, 1), D(2025, 5, 10)),
    ("з 12 травня", D(2025, 5, 12), TODAY),
    # one day
    ("два дні тому", D(2025, 5, 12), D(2025, 5, 12)),
    ("2 дні тому", D(2025, 5, 12), D(2025, 5, 12)),
    ("три дня назад", D(2025, 5, 11), D(2025, 5, 11)),
    ("three days ago", D(2025, 5, 11), D(2025, 5, 11)),
    ("a week ago", D(2025, 5, 7), D(2025, 5, 7)),
    ("вчора", D(2025, 5, 13), D(2025, 5, 13)),
    ("за позавчора", D(2025, 5, 12), D(2025, 5, 12)),
    ("за сьогодні", TODAY, TODAY),
    ("daily report", TODAY, TODAY),
    ("12 травня", D(2025, 5, 12), D(2025, 5, 12)),
    ("за понеділок", D(2025, 5, 12), D(2025, 5, 12)),
    # calendar weeks and months before, now and ahead
    ("за минулий тиждень", D(2025, 5, 5), D(2025, 5, 11)),
    ("last week", D(2025, 5, 5), D(2025, 5, 11)),
    ("цього тижня", D(2025, 5, 12), D(2025, 5, 18)),
    ("наступного тижня", D(2025, 5, 19), D(2025, 5, 25)),
    ("next month", D(2025, 6, 1), D(2025, 6, 30)),
    ("за прошлый месяц", D(2025, 4, 1), D(2025, 4, 30)),
    # since the start of
    ("з початку місяця", D(2025, 5, 1), TODAY),
    ("с начала года", D(2025, 1, 1), TODAY),
    ("since the start of the season", D(2025, 1, 1), TODAY),
    ("з понеділка", D(2025, 5, 12), TODAY),
]


def test_the_period_table_is_large_and_multilingual() -> None:
    assert len(PERIODS) >= 40
    english = sum(text.isascii() for text, _, _ in PERIODS)
    assert english >= 10
    assert len(PERIODS) - english >= 30


@pytest.mark.parametrize(("text", "start", "end"), PERIODS, ids=[row[0] for row in PERIODS])
def test_period_table(text: str, start: date, end: date) -> None:
    period = find_period(text, TODAY, WORDS)
    assert period is not None, text
    assert (period.start, period.end) == (start, end)


def test_a_span_never_runs_past_today() -> None:
    for text in ("за тиждень", "weekly report", "за місяць", "за 2 тижні", "за 3 місяці"):
        period = find_period(text, TODAY, WORDS)
        assert period is not None and period.end == TODAY, text


def test_months_are_counted_to_the_end_of_shorter_months() -> None:
    assert add_months(D(2025, 3, 31), -1) == D(2025, 2, 28)
    assert add_months(D(2024, 12, 31), 2) == D(2025, 2, 28)
    assert find_period("за місяць", D(2025, 3, 31), WORDS) == Period(
        D(2025, 3, 1), D(2025, 3, 31), "range"
    )


@pytest.mark.parametrize(
    ("start", "end", "written"),
    [
        (date(2026, 11, 25), date(2026, 12, 1), "25.11–01.12.2026"),
        (date(2026, 10, 1), date(2026, 10, 31), "01.10–31.10.2026"),
        (date(2026, 12, 28), date(2027, 1, 3), "28.12.2026–03.01.2027"),
        (date(2026, 5, 14), date(2026, 5, 14), "14.05.2026"),
    ],
)
def test_a_period_is_written_with_its_year_once(start: date, end: date, written: str) -> None:
    assert period_text(start, end) == written
