"""The daily quality chart of ``/stats``: the last 30 days' shares against their
section-15 targets, with the day's message count as bars (docs/learning.md).

Drawn like the sensor charts (``pipeline.farm.reports.charts``): ``Figure`` and
``FigureCanvasAgg`` only, never pyplot, one render at a time in a worker thread.
"""

from __future__ import annotations

import asyncio
import io
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from pipeline.farm.reports.charts import _RENDER_LOCK as RENDER_LOCK
from pipeline.language.texts import Texts
from pipeline.learning.stats import DayFigures
from pipeline.types import Attachment

__all__ = ["CHART_DAYS", "daily_chart"]

#: The chart covers this many days, whatever the period asked for.
CHART_DAYS = 30
FIGSIZE_IN = (12.0, 6.0)
DPI = 100

#: (figure, key in the catalog's stats section, target key, colour)
_LINES = (
    ("light_share", "stats.chart.light_share", "light_share_min", "tab:blue"),
    ("deep_1_2_crew_share", "stats.chart.deep_1_2", "deep_1_2_crew_share_min", "tab:orange"),
    ("eval_pass_rate", "stats.chart.eval_pass", "eval_pass_rate_min", "tab:green"),
)


def _draw(days: list[DayFigures], targets: dict[str, float], texts: Texts) -> bytes:
    figure = Figure(figsize=FIGSIZE_IN, dpi=DPI)
    FigureCanvasAgg(figure)  # attaches itself as figure.canvas: Agg, no global backend
    shares = figure.add_subplot()
    counts = shares.twinx()
    xs = [date.fromisoformat(d.day).toordinal() for d in days]
    labels = [date.fromisoformat(d.day).strftime("%d.%m") for d in days]
    counts.bar(xs, [d.interactions for d in days], color="lightgrey", alpha=0.6, width=0.8)
    counts.set_ylabel(texts.text("stats.chart.messages"))
    # The shares are drawn over the bars: their axes go in front.
    shares.set_zorder(counts.get_zorder() + 1)
    shares.patch.set_visible(False)
    for attr, key, target_key, colour in _LINES:
        values = [getattr(d, attr) for d in days]
        points = [(x, v) for x, v in zip(xs, values, strict=True) if v is not None]
        label = texts.text(key)
        if points:
            shares.plot(*zip(*points, strict=True), marker="o", color=colour, label=label)
        shares.axhline(targets[target_key], color=colour, linestyle="--", linewidth=0.8)
    shares.set_ylim(0, 1.05)
    shares.set_ylabel(texts.text("stats.chart.share"))
    step = max(1, len(xs) // 15)
    shares.set_xticks(xs[::step], labels[::step])
    shares.set_title(texts.text("stats.chart.title", days=len(days)))
    shares.grid(alpha=0.3)
    if any(v is not None for d in days for v in (d.light_share, d.eval_pass_rate)):
        shares.legend(loc="lower left", fontsize="small")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _render(days: list[DayFigures], targets: dict[str, float], texts: Texts) -> bytes:
    # matplotlib is not thread-safe: the same lock as the sensor charts.
    with RENDER_LOCK:
        return _draw(days, targets, texts)


async def daily_chart(
    days: list[DayFigures], targets: dict[str, float], texts: Texts
) -> Attachment | None:
    """The PNG, or None when the period has no messages at all."""
    if not days:
        return None
    png = await asyncio.to_thread(_render, days, targets, texts)
    return Attachment(filename=f"stats-{days[-1].day}.png", content=png)
