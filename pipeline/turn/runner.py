"""The runner: a turn through its stages in order, the fail-safe policy in one place."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pipeline.turn.stage import Stage, apology
from pipeline.turn.turn import Turn
from pipeline.types import Reply

__all__ = ["Chain"]

logger = logging.getLogger(__name__)


class Chain:
    def __init__(self, stages: Sequence[Stage]) -> None:
        self.stages = tuple(stages)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(stage.name for stage in self.stages)

    async def run(self, turn: Turn) -> Reply:
        """Never raises: a failed stage is logged once and skipped or stood in for."""
        try:
            for stage in self.stages:
                if turn.done:
                    break
                if stage.applies(turn) and not await self._step(stage, turn):
                    return apology(turn)
            return turn.final if turn.final is not None else apology(turn)
        except Exception:  # a stage's applies() or a fallback: still a reply
            logger.exception("turn failed trace=%s", turn.incoming.trace_id)
            return apology(turn)
        finally:
            for leave in reversed(turn.on_exit):
                leave()

    @staticmethod
    async def _step(stage: Stage, turn: Turn) -> bool:
        """False when a required stage failed."""
        try:
            await stage.run(turn)
        except Exception:
            logger.exception("stage %s failed trace=%s", stage.name, turn.incoming.trace_id)
            if stage.required:
                return False
            try:
                await stage.fallback(turn)
            except Exception:
                logger.exception(
                    "stage %s: fallback failed trace=%s", stage.name, turn.incoming.trace_id
                )
        return True
