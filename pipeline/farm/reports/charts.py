"""Sensor charts as PNG pictures for Telegram ("графік вологості").

The readings are aggregated by the database (``pipeline.farm.sensors.series``): a
chart of months on a farm with millions of readings loads a few thousand buckets,
never the readings. Levels (moisture, temperature...) are a line of bucket means
per field with the min-max band when there are few lines; amounts that add up
(rainfall: ``totals = true`` in rules/sensors.toml) are bars of daily totals. Times
are the farm's local clock.

matplotlib is used through ``Figure`` and ``FigureCanvasAgg`` only, never pyplot:
pyplot keeps global figure state and picks a backend for the whole process, which
would leak figures between concurrent requests and could pull in a GUI toolkit on
a server.
"""

from __future__ import annotations

import asyncio
import io
import logging
import math
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
from matplotlib.figure import Figure

from db.repositories import reporting
from db.uow import Database
from pipeline.farm.reports import sensor_label
from pipeline.farm.reports.chart_style import line_styles, natural_key
from pipeline.farm.reports.chart_window import ChartWindow
from pipeline.farm.sensors.readings import SensorType
from pipeline.farm.sensors.series import DAY, Series, bucket_width, field_totals, read_series
from pipeline.farm.slugs import slug
from pipeline.language.texts import Texts

logger = logging.getLogger(__name__)

#: Fixed picture size (1200x600 px): Telegram shows it without rescaling surprises
#: and tests can check the PNG header.
FIGSIZE_IN = (12.0, 6.0)
DPI = 100

#: Points of all lines together: more than the picture's pixels only costs time.
MAX_POINTS = 4_000
#: Points of one line, whatever the number of lines.
MAX_POINTS_PER_LINE = 1_000
MIN_POINTS_PER_LINE = 48

#: Up to this many legend entries the legend sits inside the axes.
LEGEND_INSIDE_MAX = 8
#: Up to this many lines each shows its min-max band; more would be a smear.
BANDS_MAX_LINES = 3
#: A gap longer than this (and than 4 buckets) breaks a line: a probe that was
#: offline for a day must not look like a straight day of readings.
MIN_GAP = timedelta(hours=6)

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_RENDER_LOCK = threading.Lock()

# Numeric tick labels (years, months, days, hours, minutes, seconds): matplotlib's
# defaults print English month names ("Oct"), wrong on a Ukrainian chart.
_TICKS = ["%Y", "%m.%Y", "%d.%m", "%H:%M", "%H:%M", "%S.%f"]
_ZERO_TICKS = ["", "%Y", "%m.%Y", "%d.%m", "%H:%M", "%H:%M"]
_OFFSETS = ["", "%Y", "%m.%Y", "%d.%m.%Y", "%d.%m.%Y", "%d.%m.%Y %H:%M"]


@dataclass(frozen=True, slots=True)
class Chart:
    filename: str
    png: bytes
    readings: int  # readings behind the picture
    points: int  # buckets drawn (what was loaded from the database)
    lines: int


@dataclass(frozen=True, slots=True)
class _Line:
    label: str
    series: Series
    color: str
    linestyle: str


@dataclass(frozen=True, slots=True)
class _Threshold:
    label: str
    value: float
    color: str


@dataclass(frozen=True, slots=True)
class _ChartSpec:
    title: str
    x_label: str
    y_label: str
    lines: list[_Line]
    thresholds: list[_Threshold]
    bars: bool


def points_per_line(lines: int) -> int:
    return max(MIN_POINTS_PER_LINE, min(MAX_POINTS_PER_LINE, MAX_POINTS // max(1, lines)))


def _thresholds(sensor_type: str, thresholds: dict[str, float], texts: Texts) -> list[_Threshold]:
    """``<type>_min`` / ``<type>_max`` of the farm: soil_moisture_min, temperature_min
    and temperature_max today, any new sensor type tomorrow without code changes."""
    lines: list[_Threshold] = []
    for bound, color in (("min", "tab:red"), ("max", "tab:orange")):
        value = thresholds.get(f"{sensor_type}_{bound}")
        if value is not None:
            label = texts.text(f"reports.chart_threshold_{bound}", value=f"{value:g}")
            lines.append(_Threshold(label, value, color))
    return lines


def _labelled(series: list[Series], field_names: dict[str, str], no_field: str) -> list[_Line]:
    """Lines sorted as a farmer counts («Поле 2» before «Поле 10»), readings without
    a field last, each with its own colour (and dash beyond the palette)."""

    def label(item: Series) -> str:
        if item.field_id is None:
            return no_field
        return field_names.get(item.field_id, item.field_id)

    ordered = sorted(series, key=lambda s: (s.field_id is None, natural_key(label(s))))
    styles = line_styles(len(ordered))
    return [
        _Line(label(item), item, color, dash)
        for item, (color, dash) in zip(ordered, styles, strict=True)
    ]


def _render(spec: _ChartSpec) -> bytes:
    # matplotlib documents itself as not thread-safe (shared font and text caches);
    # renders run in worker threads, so two charts at once take turns.
    with _RENDER_LOCK:
        return _draw(spec)


def _nums(moments: list[datetime]) -> list[float]:
    """matplotlib's date numbers (days) of many times in one call (one call per
    point cost a fifth of a chart); naive times are taken as they are."""
    if not moments:
        return []
    return [float(x) for x in date2num(moments)]  # type: ignore[no-untyped-call]


def _with_gaps(line: _Line) -> tuple[list[float], list[float], list[float], list[float]]:
    """x (matplotlib days), mean, min, max; NaN where the probe went quiet."""
    width = timedelta(seconds=line.series.width)
    gap = max(MIN_GAP, 4 * width)
    times: list[datetime] = []
    means: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    previous = None
    for point in line.series.points:
        if previous is not None and point.start - previous > gap:
            times.append(previous + width)
            means.append(math.nan)
            lows.append(math.nan)
            highs.append(math.nan)
        times.append(point.start + width / 2)
        means.append(point.mean)
        lows.append(point.minimum)
        highs.append(point.maximum)
        previous = point.start
    return _nums(times), means, lows, highs


def _draw_lines(axes: Axes, spec: _ChartSpec) -> None:
    bands = len(spec.lines) <= BANDS_MAX_LINES
    for line in spec.lines:
        xs, means, lows, highs = _with_gaps(line)
        axes.plot(
            xs, means, linewidth=1.4, label=line.label, color=line.color, linestyle=line.linestyle
        )
        if bands:
            axes.fill_between(xs, lows, highs, color=line.color, alpha=0.15, linewidth=0)


def _draw_bars(axes: Axes, spec: _ChartSpec) -> None:
    """Daily totals side by side within each day, one colour per field."""
    count = max(1, len(spec.lines))
    bar = 0.8 / count
    for index, line in enumerate(spec.lines):
        starts = _nums([p.start for p in line.series.points])
        xs = [start + 0.1 + bar * (index + 0.5) for start in starts]
        totals = [p.total for p in line.series.points]
        axes.bar(xs, totals, width=bar, label=line.label, color=line.color)


def _draw(spec: _ChartSpec) -> bytes:
    figure = Figure(figsize=FIGSIZE_IN, dpi=DPI)
    FigureCanvasAgg(figure)  # attaches itself as figure.canvas: Agg, no global backend
    axes = figure.add_subplot()
    if spec.bars:
        _draw_bars(axes, spec)
    else:
        _draw_lines(axes, spec)
    for threshold in spec.thresholds:
        axes.axhline(threshold.value, color=threshold.color, linestyle="--", label=threshold.label)
    # Bucket times are local wall-clock times drawn as they are: the axis is told
    # they are UTC so that matplotlib converts nothing.
    axes.xaxis_date()
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    formatter = ConciseDateFormatter(  # type: ignore[no-untyped-call]
        locator, formats=_TICKS, zero_formats=_ZERO_TICKS, offset_formats=_OFFSETS
    )
    axes.xaxis.set_major_formatter(formatter)
    axes.set_title(spec.title)
    axes.set_xlabel(spec.x_label)
    axes.set_ylabel(spec.y_label)
    axes.grid(alpha=0.3)
    entries = len(spec.lines) + len(spec.thresholds)
    if entries <= LEGEND_INSIDE_MAX:
        axes.legend(loc="best", fontsize="small")
    else:
        # A farm with dozens of fields: the legend beside the plot, not over the lines.
        axes.legend(
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize="x-small",
            ncol=math.ceil(entries / 25),
        )
    # tight_layout moves the axes inside the canvas; bbox_inches="tight" would change
    # the picture size, which must stay 1200x600.
    figure.tight_layout()
    buffer = io.BytesIO()
    # Fastest zlib level: a chart is flat colours, so the file grows little, while
    # the default level spent a fifth of the chart's time compressing.
    figure.savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    png = buffer.getvalue()
    if not png.startswith(_PNG_SIGNATURE):  # pragma: no cover - matplotlib contract
        raise RuntimeError("matplotlib did not produce a PNG")
    return png


def chart_filename(sensor_type: str, window: ChartWindow, field_id: str | None) -> str:
    parts = ["stepan", slug(sensor_type.replace("_", "-")) or "sensor"]
    if field_id is not None:
        parts.append(slug(field_id.rsplit(":", 1)[-1]) or "field")
    parts.append(window.start.isoformat())
    if window.end != window.start:
        parts.append(window.end.isoformat())
    return "_".join(parts) + ".png"


def span_text(window: ChartWindow) -> str:
    """ "14.05.2025", "01.10–31.10.2025" or "15.11.2024–14.05.2025"."""
    start, end = window.start, window.end
    if start == end:
        return f"{end:%d.%m.%Y}"
    if start.year == end.year:
        return f"{start:%d.%m}–{end:%d.%m.%Y}"
    return f"{start:%d.%m.%Y}–{end:%d.%m.%Y}"


async def load_series(
    db: Database,
    farm_id: str,
    kind: SensorType,
    window: ChartWindow,
    *,
    zone: tzinfo,
    lines: int,
    field_id: str | None = None,
) -> list[Series]:
    """The chart's series: daily totals per field for amounts, else bucket levels with
    the width that keeps about ``lines`` lines within ``MAX_POINTS``."""
    if kind.totals:
        per_probe = await read_series(
            db,
            farm_id,
            kind.name,
            since=window.since,
            until=window.until,
            width=DAY,
            zone=zone,
            field_id=field_id,
            by_sensor=True,
        )
        return field_totals(per_probe)
    width = bucket_width(window.until - window.since, points_per_line(lines))
    return await read_series(
        db,
        farm_id,
        kind.name,
        since=window.since,
        until=window.until,
        width=width,
        zone=zone,
        field_id=field_id,
    )


async def sensor_chart(
    db: Database,
    farm_id: str,
    kind: SensorType,
    window: ChartWindow,
    *,
    zone: tzinfo,
    field_id: str | None = None,
    texts: Texts,
) -> Chart | None:
    """A chart of ``kind`` readings over ``window`` (a line or bars per field) with the
    farm's thresholds; None when there is nothing to draw."""
    if window.empty:
        return None
    async with db.read() as session:
        fields = await reporting.fields(session, farm_id)
        thresholds = await reporting.alert_thresholds(session, farm_id)
    lines = 1 if field_id is not None else len(fields) + 1
    series = await load_series(db, farm_id, kind, window, zone=zone, lines=lines, field_id=field_id)
    if not series:
        return None
    field_names = {info.field_id: info.name for info in fields}
    sensor = sensor_label(texts, kind.name)
    if field_id is None:
        title = texts.text("charts.title", sensor=sensor, span=span_text(window))
    else:
        field = field_names.get(field_id, field_id)
        title = texts.text("charts.title_field", sensor=sensor, field=field, span=span_text(window))
    y_key = "charts.daily_total" if kind.totals else "reports.chart_value"
    spec = _ChartSpec(
        title=title,
        x_label=texts.text("charts.time", zone=str(zone)),
        y_label=texts.text(y_key, sensor=sensor, unit=kind.unit),
        lines=_labelled(series, field_names, texts.text("reports.no_field")),
        thresholds=[] if kind.totals else _thresholds(kind.name, thresholds, texts),
        bars=kind.totals,
    )
    # Rendering takes a noticeable fraction of a second: keep the event loop free.
    png = await asyncio.to_thread(_render, spec)
    readings = sum(item.readings for item in series)
    points = sum(len(item.points) for item in series)
    logger.info(
        "charts: %s of %s %s..%s: %d readings in %d points, %d lines",
        kind.name,
        farm_id,
        window.start,
        window.end,
        readings,
        points,
        len(series),
    )
    return Chart(chart_filename(kind.name, window, field_id), png, readings, points, len(series))
