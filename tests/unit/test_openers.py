"""When a deep reply opens with the farmer's name (pipeline/crew/openers.py, [opener]
in rules/compose.toml): only on several lines, never twice in a row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pipeline.crew.openers import OpenerRule
from pipeline.profiles import RecentTopic
from tests.shared import rulebook

NOW = datetime(2026, 5, 14, 10, 0, tzinfo=UTC)
RULE = rulebook().words.opener
LONG = "\n".join(f"рядок {n}" for n in range(RULE.min_lines))


def _topic(intent: str, minutes_ago: float) -> RecentTopic:
    return RecentTopic(intent=intent, ts=NOW - timedelta(minutes=minutes_ago))


def test_never_before_a_single_sentence() -> None:
    assert not RULE.allows("Показів датчиків поки немає.", [], NOW)
    short = "\n\n".join(["Перший рядок.", ""] * (RULE.min_lines - 1))
    assert not RULE.allows(short, [], NOW)


def test_a_reply_of_several_lines_may_open() -> None:
    assert RULE.allows(LONG, [], NOW)
    assert RULE.allows(LONG, [_topic("greeting", 1)], NOW)  # after «привіт»: yes


def test_never_twice_in_a_row() -> None:
    assert not RULE.allows(LONG, [_topic("planning", 2)], NOW)
    assert not RULE.allows(LONG, [_topic("reporting", 1), _topic("iot", 1)], NOW)


def test_a_new_conversation_may_open_again() -> None:
    later = RULE.conversation.total_seconds() / 60 + 1
    assert RULE.allows(LONG, [_topic("planning", later)], NOW)


def test_the_rule_is_checked_on_load() -> None:
    with pytest.raises(ValueError, match="min_lines"):
        OpenerRule.from_rules({"min_lines": 1, "conversation_minutes": 30}, frozenset())
