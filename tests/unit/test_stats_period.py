"""/stats periods, the memory-service state from the breaker and the outbox, and the
✅ / ❌ marks of the /stats text."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta

import pytest

from bot.cli.stats import parse_since
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.learning.config import LearningRules
from pipeline.learning.stats import MemoryFigures, QualityStats, memory_state, parse_period
from pipeline.learning.stats_report import stats_text

NOW = datetime(2026, 4, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("7d", timedelta(days=7)),
        ("7", timedelta(days=7)),
        ("24h", timedelta(hours=24)),
        (" 2w ", timedelta(days=14)),
        ("1m", timedelta(days=30)),
        ("3 дні", timedelta(days=3)),
        ("12 год", timedelta(hours=12)),
        ("1міс", timedelta(days=30)),
    ],
)
def test_periods_are_read(text: str, span: timedelta) -> None:
    assert parse_period(text) == span


@pytest.mark.parametrize("text", ["", "0d", "abc", "7x", "-3d", "99999d", "7d 3h"])
def test_nonsense_is_no_period(text: str) -> None:
    assert parse_period(text) is None


def test_since_takes_a_period_or_a_date() -> None:
    assert parse_since(None, NOW) == (NOW - timedelta(days=7), timedelta(days=7))
    assert parse_since("2d", NOW) == (NOW - timedelta(days=2), timedelta(days=2))
    start = datetime(2026, 4, 1, tzinfo=UTC)
    assert parse_since("2026-04-01", NOW) == (start, NOW - start)
    assert parse_since("2027-01-01", NOW) is None  # the future has no figures
    assert parse_since("yesterday", NOW) is None


@pytest.mark.parametrize(
    ("breaker", "backlog", "dead", "oldest", "state"),
    [
        ("disabled", 5, 0, 9999.0, "off"),
        ("open", 0, 0, None, "down"),
        ("half_open", 0, 0, None, "degraded"),
        ("closed", 3, 0, 20.0, "ok"),
        ("closed", 3, 1, 20.0, "degraded"),
        (None, 3, 0, 20.0, "ok"),
        (None, 3, 0, 3600.0, "degraded"),  # the CLI: rows nobody has sent for an hour
    ],
)
def test_memory_state(
    breaker: str | None, backlog: int, dead: int, oldest: float | None, state: str
) -> None:
    assert memory_state(breaker, backlog, dead, oldest) == state


def _stats(light_share: float, light_p50: float) -> QualityStats:
    targets = LearningRules.load().targets
    return QualityStats(
        since=NOW.isoformat(),
        interactions=10,
        light_share=light_share,
        p50_ms={"light": light_p50, "deep": None},
        p95_ms={"light": light_p50 * 2, "deep": None},
        deep_1_2_crew_share=None,
        eval_pass_rate=1.0,
        feedback_up=1,
        feedback_down=3,
        feedback_ratio=0.25,
        corrections=2,
        outbox_backlog=0,
        memory_service=MemoryFigures("down", "open", 4, 0, 50.0),
        targets=asdict(targets),
    )


def test_the_text_marks_each_figure_against_its_target() -> None:
    catalog = Catalog.load()
    text = stats_text(_stats(0.45, 2500.0), Texts(catalog, "uk"), "7 дн.")
    lines = text.splitlines()
    assert lines[0] == catalog.text("uk", "stats.header", period="7 дн.", count=10)
    assert lines[1].startswith("✅") and "45 %" in lines[1]  # light share over 30 %
    assert lines[2].startswith("❌") and "2,5 с" in lines[2]  # light p50 over 2 s
    assert lines[3].startswith("▫️")  # no deep replies: no mark either way
    assert lines[5].startswith("✅")  # eval pass rate 100 %
    assert lines[6].startswith("❌") and "25 %" in lines[6]  # 1 up, 3 down
    assert lines[-1].startswith("❌") and "недоступний" in lines[-1]
    english = stats_text(_stats(0.2, 900.0), Texts(catalog, "en"), "7 days")
    assert english.splitlines()[1].startswith("❌") and "20 %" in english
    assert english.splitlines()[2].startswith("✅") and "0.9 s" in english
