"""Which days a chart covers: the one period reader (``pipeline.farm.words.dates``) applied
to the farmer's words, on the farm's clock.

"графік вологості за жовтень" is October 1-31, not "the days since October 1";
"за 2 тижні" the last 14 days up to today; "за місяць" the last month up to today.
Without a period the chart shows the last ``days`` days (7 by default). The window
never reaches past now, and a chart covers at most ``MAX_CHART_DAYS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from pipeline.farm.words.dates import DateWords, Hemisphere, Period, find_period

#: Longest chart: a year of daily buckets still fits a 1200 px picture.
MAX_CHART_DAYS = 366
DEFAULT_CHART_DAYS = 7


@dataclass(frozen=True, slots=True)
class ChartWindow:
    start: date  # first local day shown
    end: date  # last local day shown (inclusive)
    since: datetime  # aware UTC: local midnight of ``start``
    until: datetime  # aware UTC: local midnight after ``end``, or now if earlier

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    @property
    def empty(self) -> bool:
        return self.until <= self.since


def local_midnight(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time.min, zone).astimezone(UTC)


def window_of(period: Period | None, *, days: int, now: datetime, zone: tzinfo) -> ChartWindow:
    """The chart's days: ``period``, else the last ``days`` days up to today."""
    today = now.astimezone(zone).date()
    if period is None:
        span = max(1, min(days, MAX_CHART_DAYS))
        start, end = today - timedelta(days=span - 1), today
    else:
        start, end = period.start, period.end
        if (end - start).days + 1 > MAX_CHART_DAYS:
            start = end - timedelta(days=MAX_CHART_DAYS - 1)
    since = local_midnight(start, zone)
    until = min(local_midnight(end + timedelta(days=1), zone), now.astimezone(UTC))
    return ChartWindow(start, end, since, until)


def chart_window(
    text: str,
    *,
    days: int,
    now: datetime,
    zone: tzinfo,
    words: DateWords,
    hemisphere: Hemisphere = "north",
) -> ChartWindow:
    """The window ``text`` names ("за жовтень", "for 2 weeks"...), else the last
    ``days`` days; "today" is the farm's local date."""
    today = now.astimezone(zone).date()
    period = find_period(text, today, words, hemisphere=hemisphere) if text.strip() else None
    return window_of(period, days=days, now=now, zone=zone)
