"""/stats figures equal an independent computation on a seeded month."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

from db.models import FeedbackRow, InteractionRow
from db.uow import Database
from pipeline.learning.config import LearningRules
from pipeline.learning.stats import collect

START = datetime(2026, 3, 1, tzinfo=UTC)


def _nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 1)


async def test_stats_equal_an_independent_computation(db: Database) -> None:
    rng = random.Random(13)
    rows = []
    for n in range(600):
        mode = "light" if rng.random() < 0.4 else "deep"
        crew = (
            []
            if mode == "light"
            else rng.sample(["iot", "ops", "platform", "spreadsheet"], rng.randint(0, 4))
        )
        warnings = None if n % 50 == 0 else (1 if rng.random() < 0.1 else 0)
        rows.append(
            InteractionRow(
                trace_id=f"t{n:05d}",
                user_id=f"tg:{n % 7}",
                chat_id=n % 7,
                mode=mode,
                intent="greeting" if mode == "light" else "iot",
                crew=crew,
                confidence=0.9,
                reason="rule",
                latency_ms=rng.uniform(5, 300) if mode == "light" else rng.uniform(200, 9000),
                text=None,
                created_at=START + timedelta(hours=n),
                eval_warnings=warnings,
                eval_infos=0,
                eval_failed=[],
            )
        )
    votes = [
        FeedbackRow(
            trace_id=f"t{n:05d}",
            user_id="tg:1",
            verdict=rng.choice(["up", "up", "down", "fix"]),
            created_at=START + timedelta(hours=n),
        )
        for n in range(0, 600, 9)
    ]
    async with db.write() as session:
        session.add_all(rows + votes)
    since = START + timedelta(days=10)
    stats = await collect(db, since, LearningRules.load().targets)

    period = [r for r in rows if r.created_at >= since]
    light = [r for r in period if r.mode == "light"]
    deep = [r for r in period if r.mode == "deep"]
    evaluated = [r for r in period if r.eval_warnings is not None]
    recent_votes = [v.verdict for v in votes if v.created_at >= since]
    assert stats.interactions == len(period)
    assert stats.light_share == round(len(light) / len(period), 4)
    assert stats.deep_1_2_crew_share == round(
        sum(1 <= len(r.crew) <= 2 for r in deep) / len(deep), 4
    )
    assert stats.eval_pass_rate == round(
        sum(r.eval_warnings == 0 for r in evaluated) / len(evaluated), 4
    )
    assert stats.p50_ms["light"] == _nearest_rank([r.latency_ms for r in light], 0.5)
    assert stats.p95_ms["deep"] == _nearest_rank([r.latency_ms for r in deep], 0.95)
    up, down = recent_votes.count("up"), recent_votes.count("down")
    assert (stats.feedback_up, stats.feedback_down) == (up, down)
    assert stats.feedback_ratio == round(up / (up + down), 4)
    data = stats.as_json()
    assert data["light_share"]["target_min"] == 0.3
    assert data["p50_ms"]["deep"]["target_max"] == 30000
