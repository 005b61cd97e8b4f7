"""Activation gate (seed sections 3.5 and 11): re-entry guard and crew selection."""

from __future__ import annotations

import logging
from contextvars import ContextVar

from pipeline.intents import Intent
from pipeline.types import CREW_NAMES, DepthDecision

logger = logging.getLogger(__name__)

#: Stepan may delegate, but nothing may re-enter handle_message (seed 3.5).
MAX_DEPTH = 1

# The seed keeps this counter in a threading.local. That does not isolate asyncio
# tasks: every chat served by the same event loop shares one thread, so one chat
# would see another's depth and be refused. A ContextVar is copied into each task,
# so each conversation counts only its own nesting.
_depth: ContextVar[int] = ContextVar("stepan_gate_depth", default=0)


def pre_check(trace_id: str) -> bool:
    """Enter handle_message; False when this context is already inside it."""
    depth = _depth.get()
    if depth >= MAX_DEPTH:
        logger.error("activation_gate: max depth %d reached trace=%s", MAX_DEPTH, trace_id)
        return False
    _depth.set(depth + 1)
    return True


def release(trace_id: str) -> None:
    """Leave handle_message (always called from a ``finally``)."""
    _depth.set(max(0, _depth.get() - 1))
    logger.debug("activation_gate: released trace=%s", trace_id)


def current_depth() -> int:
    return _depth.get()


def select_crew(decision: DepthDecision, *, has_iot: bool) -> tuple[str, ...]:
    """The smallest set of sub-agents to run, sorted by name.

    The IoT agent is dropped when the farm has no IoT integration, and the
    spreadsheet agent is kept only when a report was asked for.
    """
    wanted = set(decision.crew_needed)
    if not has_iot:
        wanted.discard("iot")
    if Intent.REPORTING not in (decision.intent, *decision.matched_intents):
        wanted.discard("spreadsheet")
    return tuple(name for name in CREW_NAMES if name in wanted)
