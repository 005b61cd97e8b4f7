"""Quality statistics against the seed plan's section-15 targets (docs/learning.md).

Everything is SQL aggregation over the period's rows (counts, sums, and a
nearest-rank percentile read with ORDER BY .. LIMIT 1 OFFSET k), the same on SQLite
and PostgreSQL; nothing loads the interactions into Python. ``/stats`` and
``stepan stats --json`` print the same figures.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import CorrectionRow, FeedbackRow, InteractionRow, OutboxRow
from db.uow import Database
from pipeline.learning.config import Targets

__all__ = ["QualityStats", "collect"]


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
    targets: dict[str, float]

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
        data["p50_ms"] = {
            "light": {"value": self.p50_ms["light"], "target_max": t["light_p50_ms_max"]},
            "deep": {"value": self.p50_ms["deep"], "target_max": t["deep_p50_ms_max"]},
        }
        return data


def _share(part: int | None, whole: int | None) -> float | None:
    return round((part or 0) / whole, 4) if whole else None


async def _percentile(
    session: AsyncSession, since: datetime, mode: str, count: int, q: float
) -> float | None:
    """Nearest-rank percentile: the ceil(q*n)-th smallest latency."""
    if count == 0:
        return None
    offset = max(0, math.ceil(q * count) - 1)
    value = await session.scalar(
        select(InteractionRow.latency_ms)
        .where(InteractionRow.created_at >= since, InteractionRow.mode == mode)
        .order_by(InteractionRow.latency_ms)
        .limit(1)
        .offset(offset)
    )
    return None if value is None else round(float(value), 1)


async def collect(db: Database, since: datetime, targets: Targets) -> QualityStats:
    crew_size = func.json_array_length(InteractionRow.crew)
    async with db.read() as session:
        row = (
            await session.execute(
                select(
                    func.count(),
                    func.sum(case((InteractionRow.mode == "light", 1), else_=0)),
                    func.sum(case((InteractionRow.mode == "deep", 1), else_=0)),
                    func.sum(
                        case(
                            ((InteractionRow.mode == "deep") & crew_size.between(1, 2), 1),
                            else_=0,
                        )
                    ),
                    func.count(InteractionRow.eval_warnings),
                    func.sum(case((InteractionRow.eval_warnings == 0, 1), else_=0)),
                ).where(InteractionRow.created_at >= since)
            )
        ).one()
        total, light, deep, small_crew, evaluated, passed = (int(v or 0) for v in row)
        votes = dict(
            (
                await session.execute(
                    select(FeedbackRow.verdict, func.count())
                    .where(FeedbackRow.created_at >= since)
                    .group_by(FeedbackRow.verdict)
                )
            ).all()
        )
        corrections = await session.scalar(
            select(func.count()).select_from(CorrectionRow).where(CorrectionRow.created_at >= since)
        )
        backlog = await session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.sent_at.is_(None))
        )
        p50 = {
            m: await _percentile(session, since, m, n, 0.5)
            for m, n in (("light", light), ("deep", deep))
        }
        p95 = {
            m: await _percentile(session, since, m, n, 0.95)
            for m, n in (("light", light), ("deep", deep))
        }
    up, down = int(votes.get("up", 0)), int(votes.get("down", 0))
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
        outbox_backlog=int(backlog or 0),
        targets=asdict(targets),
    )
