"""Periods of reports as farmers ask for them: never a day ahead of today, and the
day before today always in (on the 1st of a month too)."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.words.dates import parse_period
from pipeline.rulebook import Rulebook

WORDS = Rulebook.load().dates
FIRST = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("weekly report", date(2026, 11, 25), FIRST),
        ("make an excel of operations", date(2026, 11, 2), FIRST),
        ("зроби звіт в excel", date(2026, 11, 2), FIRST),
        ("сделай отчет в эксель", date(2026, 11, 2), FIRST),
        ("звіт за тиждень", date(2026, 11, 25), FIRST),
        ("отчет за неделю", date(2026, 11, 25), FIRST),
        ("monthly report", date(2026, 11, 2), FIRST),
        ("excel за жовтень", date(2026, 10, 1), date(2026, 10, 31)),
        ("report for last week", date(2026, 11, 23), date(2026, 11, 29)),
    ],
)
def test_a_report_without_a_period_ends_today(text: str, start: date, end: date) -> None:
    period = parse_period(text, FIRST, WORDS, default="recent")
    assert (period.start, period.end) == (start, end)
    assert period.end <= FIRST
