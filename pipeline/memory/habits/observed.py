"""How a profile learns from use (seed sections 5-6), as pure functions over what
was observed. The numbers and words are in ``pipeline/rules/profiles.toml``; the
service that reads the observations and writes the result is
``pipeline.memory.habits.learner``. Details: docs/memory.md, "Learning from use"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from pipeline.memory.habits.rules import SeasonRules, TypicalIntentRules
from pipeline.profiles import Phase


@dataclass(frozen=True, slots=True)
class IntentCount:
    """How often one intent was seen in the window, and when last."""

    intent: str
    count: int
    last: datetime


@dataclass(frozen=True, slots=True)
class JournalOp:
    """One written journal operation, as the season rules see it."""

    op_type: str
    op_date: date
    status: str  # "done" | "planned"


@dataclass(frozen=True, slots=True)
class Season:
    approximate_month: int
    active_operations: list[str]
    #: The phase the journal shows; None: the journal says nothing (keep the old one).
    phase: Phase | None


def typical_intents(counts: Iterable[IntentCount], rules: TypicalIntentRules) -> list[str]:
    """The most frequent work intents (at least ``min_count`` times), most frequent
    first, ties broken by the most recent; at most ``keep``."""
    eligible = [
        c
        for c in counts
        if c.intent and c.intent not in rules.ignore and c.count >= rules.min_count
    ]
    eligible.sort(key=lambda c: (-c.count, -c.last.timestamp(), c.intent))
    return [c.intent for c in eligible[: rules.keep]]


def typical_window_start(now: datetime, rules: TypicalIntentRules) -> datetime:
    return now - timedelta(days=rules.window_days)


def season_window(today: date, rules: SeasonRules) -> tuple[date, date]:
    """The journal days the season rules read: the last ``window_days`` and the
    planned operations ``ahead_days`` ahead."""
    return today - timedelta(days=rules.window_days), today + timedelta(days=rules.ahead_days)


def season(today: date, ops: Sequence[JournalOp], rules: SeasonRules) -> Season:
    """The calendar month, the active operations and the phase the journal shows."""
    start, end = season_window(today, rules)
    done = [op for op in ops if op.status != "planned" and start <= op.op_date <= today]
    planned = [op for op in ops if op.status == "planned" and start <= op.op_date <= end]
    active = done + planned
    kinds = Counter(op.op_type for op in active)
    newest = {kind: max(op.op_date for op in active if op.op_type == kind) for kind in kinds}
    ordered = sorted(kinds, key=lambda kind: (-kinds[kind], -newest[kind].toordinal(), kind))
    return Season(
        approximate_month=today.month,
        active_operations=ordered[: rules.keep_operations],
        phase=_phase(done, planned, rules),
    )


def _phase(
    done: Sequence[JournalOp], planned: Sequence[JournalOp], rules: SeasonRules
) -> Phase | None:
    phased = [op for op in done if op.op_type in rules.phase_of_operation]
    if phased:
        last_day = max(op.op_date for op in phased)
        # Several kinds on the newest day: the phase most of them mean.
        votes = Counter(
            rules.phase_of_operation[op.op_type] for op in phased if op.op_date == last_day
        )
        return min(votes, key=lambda phase: (-votes[phase], phase))
    if planned:
        return "planning"
    return None
