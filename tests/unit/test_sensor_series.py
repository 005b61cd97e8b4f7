"""Bucket widths, daylight-saving segments, merging buckets, line styles and order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from db.repositories.sensor_buckets import BucketRow
from pipeline.farm.reports.chart_style import line_styles, natural_key
from pipeline.farm.sensors.series import DAY, NICE_WIDTHS, bucket_width, merge, offset_segments

KYIV = ZoneInfo("Europe/Kyiv")


@pytest.mark.parametrize(
    ("days", "points", "width"),
    [(1, 1000, 120), (7, 1000, 900), (30, 1000, 3600), (90, 1000, 10800), (90, 250, 43200),
     (366, 1000, 43200), (366, 500, DAY), (3000, 1000, DAY)],
)  # fmt: skip
def test_bucket_width(days: int, points: int, width: int) -> None:
    assert bucket_width(timedelta(days=days), points) == width
    assert all(DAY % w == 0 for w in NICE_WIDTHS)


def test_no_change_no_cut() -> None:
    since = datetime(2025, 6, 1, tzinfo=UTC)
    segments = offset_segments(since, since + timedelta(days=60), KYIV)
    assert [(s.since, s.until, s.offset) for s in segments] == [
        (since, since + timedelta(days=60), 3 * 3600)
    ]


def test_cut_at_both_changes_of_a_year() -> None:
    since = datetime(2025, 1, 1, tzinfo=UTC)
    segments = offset_segments(since, since + timedelta(days=365), KYIV)
    assert [s.offset // 3600 for s in segments] == [2, 3, 2]
    # 30 March 2025 01:00 UTC and 26 October 2025 01:00 UTC.
    assert segments[0].until == segments[1].since == datetime(2025, 3, 30, 1, tzinfo=UTC)
    assert segments[1].until == segments[2].since == datetime(2025, 10, 26, 1, tzinfo=UTC)
    assert segments[-1].until == since + timedelta(days=365)


def test_utc_is_one_segment() -> None:
    since = datetime(2025, 1, 1, tzinfo=UTC)
    assert len(offset_segments(since, since + timedelta(days=365), UTC)) == 1


def test_merge_adds_buckets_that_two_segments_share() -> None:
    rows = [
        BucketRow("field:a", None, 10, 2, 1.0, 5.0, 6.0),
        BucketRow("field:a", None, 11, 1, 7.0, 7.0, 7.0),
        BucketRow("field:a", None, 10, 2, 0.5, 3.0, 4.0),  # same day, the next segment
        BucketRow(None, None, 10, 1, 9.0, 9.0, 9.0),
    ]
    series = {s.field_id: s for s in merge(rows, DAY)}
    first = series["field:a"].points[0]
    assert (first.count, first.minimum, first.maximum, first.mean) == (4, 0.5, 5.0, 2.5)
    assert first.start == datetime(1970, 1, 11)
    assert [p.count for p in series["field:a"].points] == [4, 1]
    assert series[None].readings == 1


def test_natural_order() -> None:
    names = ["Поле 10", "Поле 2", "поле 1", "Поле 10а", "Дальнє", "Курган", "Поле 21"]
    assert sorted(names, key=natural_key) == [
        "Дальнє", "Курган", "поле 1", "Поле 2", "Поле 10", "Поле 10а", "Поле 21",
    ]  # fmt: skip


@pytest.mark.parametrize("count", [1, 5, 10, 11, 15, 20, 21, 40, 80])
def test_every_line_looks_different(count: int) -> None:
    styles = line_styles(count)
    assert len(styles) == count == len(set(styles))
    if count <= 20:  # within the palette: the colours alone tell lines apart
        assert len({colour for colour, _ in styles}) == count
