"""Quality statistics against the seed plan's section-15 targets (docs/learning.md).

Everything is SQL aggregation over the period's rows (counts, sums, and a
nearest-rank percentile read with ORDER BY .. LIMIT 1 OFFSET k), the same on SQLite
and PostgreSQL; nothing loads the interactions into Python. ``/stats`` and
``stepan stats --json`` print the same figures.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any, Literal

from db.repositories import quality
from db.uow import Database, Session
from pipeline.farm.sensors.series import offset_segments
from pipeline.learning.config import Targets

__all__ = ["DayFigures", "MemoryFigures", "QualityStats", "collect", "daily", "parse_period"]

#: A pending outbox row older than this while no breaker says otherwise means the
#: memory-service is not taking writes (the flush job runs every 30 s).
STALE_OUTBOX = timedelta(minutes=10)

MemoryState = Literal["ok", "degraded", "down", "off"]
_EPOCH_DAY = date(1970, 1, 1)


@dataclass(frozen=True, slots=True)
class MemoryFigures:
    """The memory-service's availability now: the breaker (only a running bot knows
    it; None from the command line) and the outbox it leaves behind."""

    state: MemoryState
    breaker: str | None
    backlog: int
    dead: int
    oldest_pending_s: float | None


def memory_state(
    breaker: str | None, backlog: int, dead: int, oldest_pending_s: float | None
) -> MemoryState:
    if breaker == "disabled":
        return "off"
    if breaker == "open":
        return "down"
    stale = oldest_pending_s is not None and oldest_pending_s > STALE_OUTBOX.total_seconds()
    if breaker == "half_open" or stale or dead:
        return "degraded"
    return "ok"


_PERIOD = re.compile(r"^\s*(\d{1,4})\s*([^\d\s]*)\s*$")
#: Units of ``/stats 7d`` / ``stepan stats --since 2w`` (uk and en); a bare number is days.
_UNITS: dict[str, timedelta] = {
    **dict.fromkeys(("h", "hr", "hours", "г", "год"), timedelta(hours=1)),
    **dict.fromkeys(("", "d", "day", "days", "д", "дн", "днів", "дні"), timedelta(days=1)),
    **dict.fromkeys(("w", "week", "weeks", "т", "тиж"), timedelta(days=7)),
    **dict.fromkeys(("m", "month", "months", "міс"), timedelta(days=30)),
}
MAX_PERIOD = timedelta(days=3660)


def parse_period(text: str) -> timedelta | None:
    """``7d`` / ``24h`` / ``2w`` / ``1m`` / ``30`` (days); None if it is none of them."""
    match = _PERIOD.match(text.casefold())
    if match is None or match.group(2) not in _UNITS:
        return None
    span = int(match.group(1)) * _UNITS[match.group(2)]
    return span if timedelta(0) < span <= MAX_PERIOD else None


@dataclass(frozen=True, slots=True)
class QualityStats:
    since: str
    interactions: int
    light_share: float | None
    p50_ms: dict[str, float | None]
    p95_ms: dict[str, float | None]
    deep_1_2_crew_share: float | None
    eval_pass_rate: float | None
    feedback_up: int
    feedback_down: int
    feedback_ratio: float | None
    corrections: int
    outbox_backlog: int
    memory_service: MemoryFigures
    targets: dict[str, float]

    def meets(self, figure: str) -> bool | None:
        """Whether ``figure`` meets its section-15 target (None without data)."""
        t = self.targets
        checks: dict[str, tuple[float | None, float, bool]] = {
            "light_share": (self.light_share, t["light_share_min"], True),
            "light_p50_ms": (self.p50_ms["light"], t["light_p50_ms_max"], False),
            "deep_p50_ms": (self.p50_ms["deep"], t["deep_p50_ms_max"], False),
            "deep_1_2_crew_share": (self.deep_1_2_crew_share, t["deep_1_2_crew_share_min"], True),
            "eval_pass_rate": (self.eval_pass_rate, t["eval_pass_rate_min"], True),
            "feedback_ratio": (self.feedback_ratio, t["feedback_ratio_min"], True),
        }
        value, target, at_least = checks[figure]
        if value is None:
            return None
        return value >= target if at_least else value <= target

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        t = self.targets
        data["light_share"] = {"value": self.light_share, "target_min": t["light_share_min"]}
        data["deep_1_2_crew_share"] = {
            "value": self.deep_1_2_crew_share,
            "target_min": t["deep_1_2_crew_share_min"],
        }
        data["eval_pass_rate"] = {
            "value": self.eval_pass_rate,
            "target_min": t["eval_pass_rate_min"],
        }
        data["feedback_ratio"] = {
            "value": self.feedback_ratio,
            "target_min": t["feedback_ratio_min"],
        }
        # The seed's latency targets (light < 2 s, deep < 30 s) name no percentile:
        # both percentiles are shown against them; /stats marks the median.
        for key, values in (("p50_ms", self.p50_ms), ("p95_ms", self.p95_ms)):
            data[key] = {
                mode: {"value": values[mode], "target_max": t[f"{mode}_p50_ms_max"]}
                for mode in ("light", "deep")
            }
        return data


def _share(part: int | None, whole: int | None) -> float | None:
    return round((part or 0) / whole, 4) if whole else None


async def _percentile(
    session: Session, since: datetime, mode: str, count: int, q: float
) -> float | None:
    """Nearest-rank percentile: the ceil(q*n)-th smallest latency."""
    if count == 0:
        return None
    offset = max(0, math.ceil(q * count) - 1)
    value = await quality.latency_at(session, since, mode, offset)
    return None if value is None else round(float(value), 1)


async def collect(
    db: Database,
    since: datetime,
    targets: Targets,
    *,
    breaker: str | None = None,
    now: datetime | None = None,
) -> QualityStats:
    """The period's figures; ``breaker`` is the live memory-service breaker state
    (``MemorySync.breaker_state``) when the caller has one."""
    now = now or datetime.now(UTC)
    async with db.read() as session:
        mix = await quality.interaction_mix(session, since)
        total, light, deep, small_crew, evaluated, passed = mix
        votes = await quality.verdict_counts(session, since)
        corrections = await quality.count_corrections_since(session, since)
        outbox = await quality.outbox_unsent(session)
        p50 = {
            m: await _percentile(session, since, m, n, 0.5)
            for m, n in (("light", light), ("deep", deep))
        }
        p95 = {
            m: await _percentile(session, since, m, n, 0.95)
            for m, n in (("light", light), ("deep", deep))
        }
    up, down = int(votes.get("up", 0)), int(votes.get("down", 0))
    backlog, dead = int(outbox[0] or 0), int(outbox[1] or 0)
    oldest = _aware(outbox[2])
    oldest_s = None if oldest is None else round((now - oldest).total_seconds(), 1)
    memory = MemoryFigures(
        state=memory_state(breaker, backlog, dead, oldest_s),
        breaker=breaker,
        backlog=backlog,
        dead=dead,
        oldest_pending_s=oldest_s,
    )
    return QualityStats(
        since=since.isoformat(),
        interactions=total,
        light_share=_share(light, total),
        p50_ms=p50,
        p95_ms=p95,
        deep_1_2_crew_share=_share(small_crew, deep),
        eval_pass_rate=_share(passed, evaluated),
        feedback_up=up,
        feedback_down=down,
        feedback_ratio=_share(up, up + down),
        corrections=int(corrections or 0),
        outbox_backlog=backlog,
        memory_service=memory,
        targets=asdict(targets),
    )


def _aware(value: datetime | str | None) -> datetime | None:
    # SQLite hands an aggregate's datetime back as text, naive UTC.
    if value is None:
        return None
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class DayFigures:
    """One day of the daily chart, on the farm timezone's calendar."""

    day: str  # YYYY-MM-DD
    interactions: int
    light_share: float | None
    deep_1_2_crew_share: float | None
    eval_pass_rate: float | None


async def daily(
    db: Database, since: datetime, until: datetime, zone: tzinfo = UTC
) -> list[DayFigures]:
    """The chart's figures per day of ``zone``'s calendar (days from local midnight)
    for ``since`` <= time < ``until``: one grouped SELECT per stretch of constant
    UTC offset (a daylight-saving change splits the period; the day of the change
    is merged back into one), no rows loaded."""
    sums: dict[int, list[int]] = {}
    for segment in offset_segments(since, until, zone):
        async with db.read() as session:
            rows = await quality.interaction_mix_by_day(
                session, segment.since, segment.until, segment.offset
            )
        for key, *counts in rows:
            found = sums.setdefault(int(key), [0] * len(counts))
            for index, value in enumerate(counts):
                found[index] += int(value or 0)
    out = []
    for key in sorted(sums):
        total, light, deep, small, evaluated, passed = sums[key]
        out.append(
            DayFigures(
                day=(_EPOCH_DAY + timedelta(days=key)).isoformat(),
                interactions=total,
                light_share=_share(light, total),
                deep_1_2_crew_share=_share(small, deep),
                eval_pass_rate=_share(passed, evaluated),
            )
        )
    return out
