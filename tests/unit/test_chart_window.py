"""The chart path reads periods with the one period reader, on the farm's clock.

A table of what farmers write in uk / ru / en and the local days the chart covers
(the lost-days bugs of issue 12: «за місяць» gave 1 day, «за 2 тижні» 7 days,
«за жовтень» 62 days, «за 3 місяці» 1 day)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pipeline.farm.reports.chart_window import (
    MAX_CHART_DAYS,
    chart_window,
    local_midnight,
    window_of,
)
from pipeline.farm.words.dates import DateWords, Period
from pipeline.grammar import Grammar

WORDS = DateWords.load(Grammar.load())
KYIV = ZoneInfo("Europe/Kyiv")
NOW = datetime(2025, 11, 14, 10, 0, tzinfo=UTC)  # Friday, 12:00 in Kyiv
D = date

TABLE: list[tuple[str, date, date]] = [
    # Ukrainian
    ("графік вологості за місяць", D(2025, 10, 15), D(2025, 11, 14)),
    ("графік вологості за 2 тижні", D(2025, 11, 1), D(2025, 11, 14)),
    ("графік вологості за два тижні", D(2025, 11, 1), D(2025, 11, 14)),
    ("графік вологості за три тижні", D(2025, 10, 25), D(2025, 11, 14)),
    ("графік вологості за жовтень", D(2025, 10, 1), D(2025, 10, 31)),
    ("графік вологості за 3 місяці", D(2025, 8, 15), D(2025, 11, 14)),
    ("графік за 30 днів", D(2025, 10, 16), D(2025, 11, 14)),
    ("графік за 5 днів", D(2025, 11, 10), D(2025, 11, 14)),
    ("графік температури з 1 по 15 травня", D(2025, 5, 1), D(2025, 5, 15)),
    ("покажи графік вологості за тиждень", D(2025, 11, 8), D(2025, 11, 14)),
    ("графік за останній тиждень", D(2025, 11, 8), D(2025, 11, 14)),
    ("графік вологості на полі 3 за останні 10 днів", D(2025, 11, 5), D(2025, 11, 14)),
    ("графік опадів за вересень", D(2025, 9, 1), D(2025, 9, 30)),
    ("графік за минулий тиждень", D(2025, 11, 3), D(2025, 11, 9)),
    ("графік за минулий місяць", D(2025, 10, 1), D(2025, 10, 31)),
    ("графік за цей місяць", D(2025, 11, 1), D(2025, 11, 30)),
    ("графік за вчора", D(2025, 11, 13), D(2025, 11, 13)),
    ("графік за сьогодні", D(2025, 11, 14), D(2025, 11, 14)),
    ("графік вологості за пів року", D(2025, 5, 15), D(2025, 11, 14)),
    ("графік за 01.10–15.10", D(2025, 10, 1), D(2025, 10, 15)),
    ("графік вологості з 01.09 по 30.09", D(2025, 9, 1), D(2025, 9, 30)),
    ("графік вологості за сезон", D(2025, 1, 1), D(2025, 12, 31)),
    ("графік вологості за листопад", D(2025, 11, 1), D(2025, 11, 30)),
    ("графік вологості за грудень", D(2024, 12, 1), D(2024, 12, 31)),
    ("графік вологості за минулий рік", D(2024, 1, 1), D(2024, 12, 31)),
    # No period: the last 7 days
    ("графік вологості", D(2025, 11, 8), D(2025, 11, 14)),
    ("покажи графік температури на Північному", D(2025, 11, 8), D(2025, 11, 14)),
    # Russian
    ("график влажности за месяц", D(2025, 10, 15), D(2025, 11, 14)),
    ("график влажности за 2 недели", D(2025, 11, 1), D(2025, 11, 14)),
    ("график влажности за октябрь", D(2025, 10, 1), D(2025, 10, 31)),
    ("график за 3 месяца", D(2025, 8, 15), D(2025, 11, 14)),
    ("график за неделю", D(2025, 11, 8), D(2025, 11, 14)),
    ("график за последние 10 дней", D(2025, 11, 5), D(2025, 11, 14)),
    ("график температуры за прошлый месяц", D(2025, 10, 1), D(2025, 10, 31)),
    ("график с 1 по 15 мая", D(2025, 5, 1), D(2025, 5, 15)),
    ("график за вчера", D(2025, 11, 13), D(2025, 11, 13)),
    # English
    ("moisture chart for the last month", D(2025, 10, 1), D(2025, 10, 31)),
    ("soil moisture chart for 2 weeks", D(2025, 11, 1), D(2025, 11, 14)),
    ("chart for October", D(2025, 10, 1), D(2025, 10, 31)),
    ("temperature chart for the last 3 months", D(2025, 8, 15), D(2025, 11, 14)),
    ("chart for the week", D(2025, 11, 8), D(2025, 11, 14)),
    ("chart for last week", D(2025, 11, 3), D(2025, 11, 9)),
    ("chart for the last 10 days", D(2025, 11, 5), D(2025, 11, 14)),
    ("chart for yesterday", D(2025, 11, 13), D(2025, 11, 13)),
    ("rain chart for september", D(2025, 9, 1), D(2025, 9, 30)),
    ("chart from 1 to 15 May", D(2025, 5, 1), D(2025, 5, 15)),
    ("graph for 30 days", D(2025, 10, 16), D(2025, 11, 14)),
]


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert len({text for text, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("text", "start", "end"), TABLE)
def test_chart_days(text: str, start: date, end: date) -> None:
    window = chart_window(text, days=7, now=NOW, zone=KYIV, words=WORDS)
    assert (window.start, window.end) == (start, end)
    # Bounds are the farm's local midnights; nothing after now is asked for.
    assert window.since == local_midnight(start, KYIV)
    assert window.until == min(local_midnight(end + timedelta(days=1), KYIV), NOW)
    assert not window.empty


def test_local_day_is_not_the_utc_day() -> None:
    """At 23:30 UTC on the 14th it is already the 15th in Kyiv."""
    late = datetime(2025, 11, 14, 23, 30, tzinfo=UTC)
    window = chart_window("графік за сьогодні", days=7, now=late, zone=KYIV, words=WORDS)
    assert window.start == window.end == D(2025, 11, 15)
    assert window.since == datetime(2025, 11, 14, 22, 0, tzinfo=UTC)


def test_days_without_a_period_are_bounded() -> None:
    assert window_of(None, days=10_000, now=NOW, zone=KYIV).days == MAX_CHART_DAYS
    assert window_of(None, days=0, now=NOW, zone=KYIV).days == 1


def test_a_long_period_keeps_its_last_days() -> None:
    period = Period(D(2020, 1, 1), D(2024, 12, 31), "range")
    window = window_of(period, days=7, now=NOW, zone=KYIV)
    assert (window.end, window.days) == (D(2024, 12, 31), MAX_CHART_DAYS)


def test_a_future_period_is_empty() -> None:
    period = Period(D(2025, 12, 1), D(2025, 12, 31), "month")
    assert window_of(period, days=7, now=NOW, zone=KYIV).empty
