"""Sensor readings as time series of buckets, aggregated by the database.

Charts and the workbook never load raw readings for long periods: the database
groups them (``db.repositories.sensor_buckets``) into buckets whose width is chosen
from the period (``bucket_width``), and this module merges the groups into one
series per field (or per probe) with min / mean / max per bucket.

Buckets follow the farm's local clock: a day bucket starts at local midnight. A
period that spans a daylight-saving change is queried in parts of constant UTC
offset (``offset_segments``), each part its own short read; buckets that two parts
share (the day of the change) are merged, so a day is still one bucket.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo

from db.repositories.sensor_buckets import BucketRow, reading_buckets
from db.uow import Database

#: Bucket widths (seconds) a series may use: each divides a day, so buckets line up
#: with local hours and midnights. A day is the widest: a year is 366 points.
NICE_WIDTHS = (60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
DAY = 86_400
_EPOCH = datetime(1970, 1, 1)  # naive: bucket starts are local wall times


def bucket_width(span: timedelta, max_points: int) -> int:
    """The narrowest nice width that keeps ``span`` within ``max_points`` buckets."""
    seconds = max(span.total_seconds(), 1.0)
    for width in NICE_WIDTHS:
        if seconds / width <= max_points:
            return width
    return NICE_WIDTHS[-1]


@dataclass(frozen=True, slots=True)
class Segment:
    since: datetime  # aware UTC
    until: datetime
    offset: int  # seconds east of UTC throughout the segment


def _offset(moment: datetime, zone: tzinfo) -> int:
    shift = moment.astimezone(zone).utcoffset()
    return int(shift.total_seconds()) if shift is not None else 0


def offset_segments(since: datetime, until: datetime, zone: tzinfo) -> list[Segment]:
    """``since``..``until`` cut where the zone's UTC offset changes (daylight saving).

    Checked day by day, then hour by hour inside a day that changes: zones move
    their clocks on whole hours (the few historical half-hour moves would put one
    half hour into the neighbouring bucket)."""
    since, until = since.astimezone(UTC), until.astimezone(UTC)
    segments: list[Segment] = []
    start, current = since, _offset(since, zone)
    step = since
    while step < until:
        day_end = min(step + timedelta(days=1), until)
        if _offset(day_end, zone) != current:
            hour = step
            while hour < day_end and _offset(hour, zone) == current:
                hour += timedelta(hours=1)
            hour = min(hour, day_end)
            segments.append(Segment(start, hour, current))
            start, current = hour, _offset(hour, zone)
            step = hour
            continue
        step = day_end
    if start < until:
        segments.append(Segment(start, until, current))
    return segments


@dataclass(slots=True)
class Point:
    """One bucket: ``start`` is its local wall-clock start (naive)."""

    start: datetime
    count: int
    minimum: float
    maximum: float
    total: float

    @property
    def mean(self) -> float:
        return self.total / self.count

    def add(self, row: BucketRow) -> None:
        self.count += row.count
        self.minimum = min(self.minimum, row.minimum)
        self.maximum = max(self.maximum, row.maximum)
        self.total += row.total


@dataclass(frozen=True, slots=True)
class Series:
    """The buckets of one field (``sensor_id`` None) or of one probe, oldest first."""

    field_id: str | None
    sensor_id: str | None
    width: int
    points: list[Point] = field(default_factory=list)

    @property
    def readings(self) -> int:
        return sum(point.count for point in self.points)


def bucket_start(bucket: int, width: int) -> datetime:
    return _EPOCH + timedelta(seconds=bucket * width)


def merge(rows: Iterable[BucketRow], width: int) -> list[Series]:
    """Bucket rows (of one or several segments) as series, one per (field, probe)."""
    found: dict[tuple[str | None, str | None], dict[int, Point]] = {}
    for row in rows:
        points = found.setdefault((row.field_id, row.sensor_id), {})
        point = points.get(row.bucket)
        if point is None:
            start = bucket_start(row.bucket, width)
            points[row.bucket] = Point(start, row.count, row.minimum, row.maximum, row.total)
        else:
            point.add(row)
    return [
        Series(field_id, sensor_id, width, [points[key] for key in sorted(points)])
        for (field_id, sensor_id), points in found.items()
    ]


def field_totals(per_probe: Sequence[Series]) -> list[Series]:
    """Per-probe sums (rain gauges) as one series per field: each bucket's total is
    the mean of its probes' totals, since two gauges on a field measure the same
    rain (adding them would double it); min / max are the probes' extremes."""
    grouped: dict[str | None, dict[datetime, list[Point]]] = {}
    width = per_probe[0].width if per_probe else DAY
    for series in per_probe:
        by_start = grouped.setdefault(series.field_id, {})
        for point in series.points:
            by_start.setdefault(point.start, []).append(point)
    result: list[Series] = []
    for field_id, by_start in grouped.items():
        points = []
        for start in sorted(by_start):
            probes = by_start[start]
            totals = [p.total for p in probes]
            mean_total = sum(totals) / len(totals)
            count = sum(p.count for p in probes)
            # total / count keeps Point.mean meaningful; total is what a bar shows.
            points.append(Point(start, count, min(totals), max(totals), mean_total))
        result.append(Series(field_id, None, width, points))
    return result


async def read_series(
    db: Database,
    farm_id: str,
    sensor_type: str,
    *,
    since: datetime,
    until: datetime,
    width: int,
    zone: tzinfo,
    field_id: str | None = None,
    by_sensor: bool = False,
) -> list[Series]:
    """The type's readings in ``since`` <= time < ``until`` in buckets of ``width``
    seconds on the zone's clock, one series per field (per probe with ``by_sensor``).
    One short read per constant-offset segment."""
    rows: list[BucketRow] = []
    for segment in offset_segments(since, until, zone):
        async with db.read() as session:
            rows += await reading_buckets(
                session,
                farm_id,
                sensor_type,
                since=segment.since,
                until=segment.until,
                width=width,
                offset=segment.offset,
                field_id=field_id,
                by_sensor=by_sensor,
            )
    return merge(rows, width)
