"""``/stats`` as text: each section-15 figure beside its target, ✅ / ❌ / ▫️ (no data)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

from db.uow import Database
from pipeline.farm.journal.card import decimal
from pipeline.farm.localtime import DEFAULT_TIMEZONE, day_bounds, local_today, zone
from pipeline.language.texts import Texts
from pipeline.learning.config import Targets
from pipeline.learning.stats import QualityStats, collect, daily
from pipeline.types import Attachment, Language

__all__ = ["QualityReport", "period_text", "stats_text"]

_MARK = {True: "✅", False: "❌", None: "▫️"}


def _percent(value: float | None, lang: Language) -> str:
    return "—" if value is None else f"{decimal(round(value * 100, 1), lang)} %"


def _seconds(ms: float | None, lang: Language) -> str:
    return "—" if ms is None else decimal(round(ms / 1000, 2), lang)


def stats_text(stats: QualityStats, texts: Texts, period: str) -> str:
    t = stats.targets

    def line(figure: str, key: str, **params: object) -> str:
        return f"{_MARK[stats.meets(figure)]} " + texts.text(key, **params)

    memory = stats.memory_service
    lines = [
        texts.text("stats.header", period=period, count=stats.interactions),
        line(
            "light_share",
            "stats.light_share",
            value=_percent(stats.light_share, texts.lang),
            target=_percent(t["light_share_min"], texts.lang),
        ),
    ]
    for mode in ("light", "deep"):
        lines.append(
            line(
                f"{mode}_p50_ms",
                "stats.latency",
                mode=mode,
                p50=_seconds(stats.p50_ms[mode], texts.lang),
                p95=_seconds(stats.p95_ms[mode], texts.lang),
                target=_seconds(t[f"{mode}_p50_ms_max"], texts.lang),
            )
        )
    lines += [
        line(
            "deep_1_2_crew_share",
            "stats.deep_1_2",
            value=_percent(stats.deep_1_2_crew_share, texts.lang),
            target=_percent(t["deep_1_2_crew_share_min"], texts.lang),
        ),
        line(
            "eval_pass_rate",
            "stats.eval_pass",
            value=_percent(stats.eval_pass_rate, texts.lang),
            target=_percent(t["eval_pass_rate_min"], texts.lang),
        ),
        line(
            "feedback_ratio",
            "stats.feedback",
            value=_percent(stats.feedback_ratio, texts.lang),
            up=stats.feedback_up,
            down=stats.feedback_down,
            target=_percent(t["feedback_ratio_min"], texts.lang),
        ),
        texts.text("stats.corrections", count=stats.corrections),
        f"{_MARK[memory.state in ('ok', 'off')]} "
        + texts.text(
            "stats.memory",
            state=texts.text(f"stats.memory_state.{memory.state}"),
            backlog=memory.backlog,
            dead=memory.dead,
        ),
    ]
    return "\n".join(lines)


def period_text(span: timedelta, texts: Texts) -> str:
    hours = int(span.total_seconds() // 3600)
    if hours % 24:
        return texts.text("stats.period_hours", n=hours)
    return texts.text("stats.period_days", n=hours // 24)


class QualityReport:
    """What ``/stats`` asks for: the figures with the live memory-service breaker,
    and the daily chart. Each call is its own read transaction."""

    def __init__(
        self,
        db: Database,
        targets: Targets,
        breaker: Callable[[], str] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        timezone: str = DEFAULT_TIMEZONE,
    ) -> None:
        self._timezone = timezone  # the chart's days (STEPAN_FARM_TIMEZONE)
        self._db = db
        self._targets = targets
        self._breaker = breaker
        self._clock = clock

    async def figures(self, span: timedelta) -> QualityStats:
        now = self._clock()
        breaker = self._breaker() if self._breaker is not None else None
        return await collect(self._db, now - span, self._targets, breaker=breaker, now=now)

    async def chart(self, texts: Texts) -> Attachment | None:
        # The chart module imports matplotlib: only when a chart is drawn.
        from pipeline.learning.stats_chart import CHART_DAYS, daily_chart

        # The last CHART_DAYS days of the farm timezone's calendar, today included.
        today = local_today(self._clock(), self._timezone)
        since, until = day_bounds(today - timedelta(days=CHART_DAYS - 1), today, self._timezone)
        days = await daily(self._db, since, until, zone(self._timezone))
        return await daily_chart(days, asdict(self._targets), texts)
