"""A stage: one job in the walk of a message, with its own fallback.

The runner (pipeline/turn/runner.py) owns the fail-safe policy of seed section 10:
a stage that raises is logged once; an optional stage is then skipped, its
``fallback`` standing in for what it would have set; a required stage ends the turn
with the apology (``errors.generic`` and the trace code), never a crash.
"""

from __future__ import annotations

from typing import ClassVar

from pipeline.turn.turn import Turn
from pipeline.types import Reply

__all__ = ["Stage", "apology"]


class Stage:
    #: The stage's name in the logs and in docs/ARCHITECTURE.md.
    name: ClassVar[str]
    #: Without this stage there is no sensible reply: its failure ends the turn.
    required: ClassVar[bool] = False

    def applies(self, turn: Turn) -> bool:
        """Whether the stage has work in this turn (default: always)."""
        return True

    async def run(self, turn: Turn) -> None:
        raise NotImplementedError

    async def fallback(self, turn: Turn) -> None:
        """What stands in when ``run`` failed (default: nothing; the stage is skipped)."""


def apology(turn: Turn) -> Reply:
    """The polite reply to a failure, with the code an operator finds the logs by."""
    return Reply(turn.texts.text("errors.generic", code=turn.incoming.trace_id[:8]))
