"""/stats figures equal an independent computation on a seeded month."""

from __future__ import annotations

import io
import json
import math
import os
import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.cli.stats import run_stats
from db.models import FeedbackRow, InteractionRow, OutboxRow
from db.uow import Database
from pipeline.learning.config import LearningRules
from pipeline.learning.stats import collect, daily

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
    assert data["p95_ms"]["light"]["target_max"] == 2000
    assert data["memory_service"]["breaker"] is None


def _row(n: int, at: datetime, mode: str, crew: list[str], warnings: int | None) -> InteractionRow:
    return InteractionRow(
        trace_id=f"d{n:05d}",
        user_id="tg:1",
        chat_id=1,
        mode=mode,
        intent="iot",
        crew=crew,
        confidence=0.9,
        reason="rule",
        latency_ms=100.0,
        text=None,
        created_at=at,
        eval_warnings=warnings,
        eval_infos=0,
        eval_failed=[],
    )


async def test_daily_figures_equal_an_independent_computation(db: Database) -> None:
    rng = random.Random(7)
    rows = []
    for n in range(400):
        mode = rng.choice(["light", "deep", "deep"])
        crew = [] if mode == "light" else ["iot", "ops", "platform"][: rng.randint(0, 3)]
        warnings = rng.choice([None, 0, 0, 0, 1])
        at = START + timedelta(minutes=rng.randint(0, 12 * 24 * 60))
        rows.append(_row(n, at, mode, crew, warnings))
    async with db.write() as session:
        session.add_all(rows)
    since = START + timedelta(days=2)
    days = await daily(db, since, START + timedelta(days=13))

    expected = {}
    for day in sorted({r.created_at.date() for r in rows if r.created_at >= since}):
        of_day = [r for r in rows if r.created_at >= since and r.created_at.date() == day]
        deep = [r for r in of_day if r.mode == "deep"]
        evaluated = [r for r in of_day if r.eval_warnings is not None]
        expected[day.isoformat()] = (
            len(of_day),
            round(sum(r.mode == "light" for r in of_day) / len(of_day), 4),
            round(sum(1 <= len(r.crew) <= 2 for r in deep) / len(deep), 4) if deep else None,
            round(sum(r.eval_warnings == 0 for r in evaluated) / len(evaluated), 4)
            if evaluated
            else None,
        )
    assert {
        d.day: (d.interactions, d.light_share, d.deep_1_2_crew_share, d.eval_pass_rate)
        for d in days
    } == expected
    assert [d.day for d in days] == sorted(expected)


async def test_daily_figures_follow_the_farm_timezones_days(db: Database) -> None:
    """Days start at Kyiv's midnight (21:00 or 22:00 UTC), also across the change to
    summer time on 29 March 2026: each message counts on its local date."""
    kyiv = ZoneInfo("Europe/Kyiv")
    rng = random.Random(29)
    base = datetime(2026, 3, 25, tzinfo=UTC)
    moments = [base + timedelta(minutes=rng.randint(0, 9 * 24 * 60)) for _ in range(300)]
    # Just after local midnight: 22:30 UTC at +02 and 21:30 UTC at +03 are the next day.
    moments += [
        datetime(2026, 3, 27, 22, 30, tzinfo=UTC),
        datetime(2026, 3, 30, 21, 30, tzinfo=UTC),
    ]
    rows = [
        _row(n, at, "light" if n % 3 else "deep", ["iot"], 0 if n % 4 else 1)
        for n, at in enumerate(moments)
    ]
    async with db.write() as session:
        session.add_all(rows)
    since = datetime(2026, 3, 26, tzinfo=kyiv)
    until = datetime(2026, 4, 2, tzinfo=kyiv)
    days = await daily(db, since, until, kyiv)

    expected: dict[str, list[int]] = {}
    for row in rows:
        if since <= row.created_at < until:
            counts = expected.setdefault(row.created_at.astimezone(kyiv).date().isoformat(), [0, 0])
            counts[0] += 1
            counts[1] += row.mode == "light"
    assert [d.day for d in days] == sorted(expected) and len(days) == 7
    for figures in days:
        total, light = expected[figures.day]
        assert figures.interactions == total
        assert figures.light_share == round(light / total, 4)
    assert expected["2026-03-28"][0] >= 1 and expected["2026-03-31"][0] >= 1


async def test_memory_service_figures_come_from_the_outbox_and_the_breaker(db: Database) -> None:
    now = START + timedelta(days=1)
    async with db.write() as session:
        session.add_all(
            [
                OutboxRow(user_id="tg:1", fact_key="k", operation="upsert", payload={},
                          created_at=now - timedelta(hours=2)),
                OutboxRow(user_id="tg:2", fact_key="k", operation="upsert", payload={},
                          created_at=now - timedelta(minutes=1), state="config_error"),
                OutboxRow(user_id="tg:3", fact_key="k", operation="upsert", payload={},
                          created_at=now - timedelta(days=3), state="dead"),
                OutboxRow(user_id="tg:4", fact_key="k", operation="upsert", payload={},
                          created_at=now - timedelta(days=5), sent_at=now),
            ]
        )  # fmt: skip
    targets = LearningRules.load().targets
    offline = await collect(db, START, targets, now=now)
    memory = offline.memory_service
    assert (memory.backlog, memory.dead, memory.breaker) == (2, 1, None)
    assert memory.oldest_pending_s == 7200.0
    assert memory.state == "degraded"
    live = await collect(db, START, targets, breaker="open", now=now)
    assert live.memory_service.state == "down"
    assert live.outbox_backlog == 2


async def test_the_cli_prints_the_same_json_as_collect(db: Database, sqlite_url: str) -> None:
    async with db.write() as session:
        session.add_all([_row(n, START + timedelta(hours=n), "light", [], 0) for n in range(5)])
        session.add(_row(9, START + timedelta(hours=1), "deep", ["iot"], 1))
    now = START + timedelta(days=1)
    out = io.StringIO()
    code = await run_stats(sqlite_url, "2d", as_json=True, lang="uk", out=out, now=now)
    assert code == 0
    expected = await collect(db, now - timedelta(days=2), LearningRules.load().targets, now=now)
    printed = json.loads(out.getvalue())
    assert printed == json.loads(json.dumps(expected.as_json()))
    assert printed["light_share"] == {"value": round(5 / 6, 4), "target_min": 0.3}
    assert printed["eval_pass_rate"]["value"] == round(5 / 6, 4)


def test_the_cli_imports_neither_aiogram_nor_crewai(sqlite_url: str) -> None:
    script = (
        "import sys\n"
        "from bot.__main__ import main\n"
        "code = main(['stats', '--json'])\n"
        "print(code, 'aiogram' in sys.modules, 'crewai' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "STEPAN_DATABASE_URL": sqlite_url},
        timeout=120,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last == "0 False False"
    assert json.loads(done.stdout[: done.stdout.rindex("}") + 1])["interactions"] == 0
