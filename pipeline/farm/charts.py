"""Sensor charts as PNG pictures for Telegram ("графік вологості").

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
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure

from db.repositories import reporting
from db.repositories.reporting import ReadingRecord
from db.uow import Database
from pipeline.farm import paging
from pipeline.farm.reports import sensor_label
from pipeline.i18n import Catalog
from pipeline.slugs import slug
from pipeline.types import Language

logger = logging.getLogger(__name__)

#: Fixed picture size (1200x600 px): Telegram shows it without rescaling surprises
#: and tests can check the PNG header.
FIGSIZE_IN = (12.0, 6.0)
DPI = 100

#: More points than pixels only costs render time: readings are averaged into time
#: buckets so each line has at most this many points.
MAX_POINTS_PER_LINE = 1_000

#: Up to this many legend entries the legend sits inside the axes.
LEGEND_INSIDE_MAX = 8

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
    points: int  # readings drawn (before averaging into buckets)


@dataclass(frozen=True, slots=True)
class _Series:
    label: str
    times: list[datetime]
    values: list[float]


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
    series: list[_Series]
    thresholds: list[_Threshold]


def _bucket_seconds(days: int) -> int:
    return max(1, math.ceil(days * 86_400 / MAX_POINTS_PER_LINE))


def _series(
    readings: Sequence[ReadingRecord], field_names: dict[str, str], no_field: str, days: int
) -> list[_Series]:
    """One line per field: readings averaged per time bucket, which also merges several
    sensors of one field into one line instead of a zigzag between them."""
    width = _bucket_seconds(days)
    buckets: dict[str | None, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for reading in readings:
        stamp = int(reading.measured_at.timestamp()) // width
        buckets[reading.field_id][stamp].append(reading.value)
    lines: list[_Series] = []
    for field_id, by_bucket in buckets.items():
        stamps = sorted(by_bucket)
        lines.append(
            _Series(
                label=no_field if field_id is None else field_names.get(field_id, field_id),
                times=[datetime.fromtimestamp(s * width + width / 2, UTC) for s in stamps],
                values=[sum(by_bucket[s]) / len(by_bucket[s]) for s in stamps],
            )
        )
    lines.sort(key=lambda line: line.label)
    return lines


def _thresholds(
    sensor_type: str, thresholds: dict[str, float], catalog: Catalog, lang: Language
) -> list[_Threshold]:
    """``<type>_min`` / ``<type>_max`` of the farm: soil_moisture_min, temperature_min
    and temperature_max today, any new sensor type tomorrow without code changes."""
    lines: list[_Threshold] = []
    for bound, color in (("min", "tab:red"), ("max", "tab:orange")):
        value = thresholds.get(f"{sensor_type}_{bound}")
        if value is not None:
            label = catalog.text(lang, f"reports.chart_threshold_{bound}", value=f"{value:g}")
            lines.append(_Threshold(label, value, color))
    return lines


def _most_common_unit(readings: Sequence[ReadingRecord]) -> str:
    counts: dict[str, int] = defaultdict(int)
    for reading in readings:
        counts[reading.unit] += 1
    return max(counts, key=lambda unit: counts[unit])


def _render(spec: _ChartSpec) -> bytes:
    # matplotlib documents itself as not thread-safe (shared font and text caches);
    # renders run in worker threads, so two charts at once take turns.
    with _RENDER_LOCK:
        return _draw(spec)


def _draw(spec: _ChartSpec) -> bytes:
    figure = Figure(figsize=FIGSIZE_IN, dpi=DPI)
    FigureCanvasAgg(figure)  # attaches itself as figure.canvas: Agg, no global backend
    axes = figure.add_subplot()
    for line in spec.series:
        # Naive UTC as datetime64: matplotlib's native date type, no timezone warnings.
        times = np.array([t.replace(tzinfo=None) for t in line.times], dtype="datetime64[s]")
        axes.plot(times, line.values, linewidth=1.4, label=line.label)
    for threshold in spec.thresholds:
        axes.axhline(threshold.value, color=threshold.color, linestyle="--", label=threshold.label)
    # matplotlib.dates ships no type hints, hence the two ignores.
    locator = AutoDateLocator(tz=UTC)  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    formatter = ConciseDateFormatter(  # type: ignore[no-untyped-call]
        locator, tz=UTC, formats=_TICKS, zero_formats=_ZERO_TICKS, offset_formats=_OFFSETS
    )
    axes.xaxis.set_major_formatter(formatter)
    axes.set_title(spec.title)
    axes.set_xlabel(spec.x_label)
    axes.set_ylabel(spec.y_label)
    axes.grid(alpha=0.3)
    if len(spec.series) + len(spec.thresholds) <= LEGEND_INSIDE_MAX:
        axes.legend(loc="best", fontsize="small")
    else:
        # A farm with dozens of fields: the legend beside the plot, not over the lines.
        columns = math.ceil((len(spec.series) + len(spec.thresholds)) / 25)
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small", ncol=columns)
    # tight_layout moves the axes inside the canvas; bbox_inches="tight" would change
    # the picture size, which must stay 1200x600.
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    png = buffer.getvalue()
    if not png.startswith(_PNG_SIGNATURE):  # pragma: no cover - matplotlib contract
        raise RuntimeError("matplotlib did not produce a PNG")
    return png


def chart_filename(sensor_type: str, now: datetime, field_id: str | None) -> str:
    parts = ["stepan", slug(sensor_type.replace("_", "-")) or "sensor"]
    if field_id is not None:
        parts.append(slug(field_id.rsplit(":", 1)[-1]) or "field")
    parts.append(now.date().isoformat())
    return "_".join(parts) + ".png"


async def sensor_chart(
    db: Database,
    farm_id: str,
    sensor_type: str,
    *,
    days: int,
    now: datetime,
    field_id: str | None = None,
    catalog: Catalog,
    lang: Language = "uk",
) -> Chart | None:
    """A line per field of ``sensor_type`` readings over the last ``days`` days before
    ``now``, with the farm's thresholds; None when there is nothing to draw."""
    since = now - timedelta(days=days)
    readings = await paging.sensor_readings(
        db, farm_id, sensor_type, since=since, until=now, field_id=field_id
    )
    if not readings:
        return None
    async with db.read() as session:
        fields = await reporting.fields(session, farm_id)
        thresholds = await reporting.alert_thresholds(session, farm_id)
    field_names = {info.field_id: info.name for info in fields}
    spec = _spec(readings, sensor_type, days, field_id, field_names, thresholds, catalog, lang)
    # Rendering takes a noticeable fraction of a second: keep the event loop free.
    png = await asyncio.to_thread(_render, spec)
    logger.info(
        "charts: %s of %s over %d days: %d readings, %d lines",
        sensor_type,
        farm_id,
        days,
        len(readings),
        len(spec.series),
    )
    return Chart(chart_filename(sensor_type, now, field_id), png, len(readings))


def _spec(
    readings: Sequence[ReadingRecord],
    sensor_type: str,
    days: int,
    field_id: str | None,
    field_names: dict[str, str],
    thresholds: dict[str, float],
    catalog: Catalog,
    lang: Language,
) -> _ChartSpec:
    sensor = sensor_label(catalog, lang, sensor_type)
    no_field = catalog.text(lang, "reports.no_field")
    if field_id is None:
        title = catalog.text(lang, "reports.chart_title", sensor=sensor, days=days)
    else:
        field = field_names.get(field_id, field_id)
        title = catalog.text(
            lang, "reports.chart_title_field", sensor=sensor, field=field, days=days
        )
    return _ChartSpec(
        title=title,
        x_label=catalog.text(lang, "reports.chart_time"),
        y_label=catalog.text(
            lang, "reports.chart_value", sensor=sensor, unit=_most_common_unit(readings)
        ),
        series=_series(readings, field_names, no_field, days),
        thresholds=_thresholds(sensor_type, thresholds, catalog, lang),
    )
