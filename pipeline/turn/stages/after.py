"""The stages after the answer: reflection, the reply checks and the record."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pipeline.learning.evals import EvalContext, EvalRules
from pipeline.memory import InteractionRecord, InteractionRecorder
from pipeline.replies import reflection
from pipeline.turn.stage import Stage
from pipeline.turn.turn import Turn

__all__ = ["Evaluate", "Record", "Reflect"]


class Reflect(Stage):
    """One pass that fits the answer to the person (pipeline/replies/reflection.py)."""

    name = "reflect"
    required = True

    async def run(self, turn: Turn) -> None:
        answer = turn.answer
        assert answer is not None, "an answering stage sets the answer"
        turn.buttons = answer.buttons
        if answer.text:
            turn.text = reflection.reflect(answer.text, turn.profile, turn.incoming.trace_id)


@dataclass(frozen=True, slots=True)
class Evaluate(Stage):
    """The checks every reply is held to (docs/learning.md); a farmer never sees them."""

    rules: EvalRules
    name = "evaluate"

    def applies(self, turn: Turn) -> bool:
        return bool(turn.text)

    async def run(self, turn: Turn) -> None:
        decision = turn.decision
        context = EvalContext(
            decision.mode, decision.intent, turn.lang, turn.profile.preferred_style
        )
        turn.evals = self.rules.check(turn.text, context)


@dataclass(frozen=True, slots=True)
class Record(Stage):
    """The interaction, exactly once per update (pipeline/memory/profiles/recording.py)."""

    interactions: InteractionRecorder
    name = "record"
    required = True

    async def run(self, turn: Turn) -> None:
        incoming = turn.incoming
        spoken = turn.spoken
        await self.interactions.record(
            InteractionRecord(
                user_id=incoming.user_id,
                chat_id=incoming.chat_id,
                trace_id=incoming.trace_id,
                text=incoming.text,
                decision=turn.decision,
                crew=turn.crew,
                latency_ms=(time.perf_counter() - turn.started) * 1000,
                at=turn.now,
                name=turn.profile.name,
                language=turn.lang,
                update_id=incoming.update_id,
                evals=turn.evals,
                written_in=spoken.written_in if spoken else None,
                lasting_language=spoken.lasting if spoken else None,
                operator=incoming.is_operator,
                forget_answers=turn.forgets,
            ),
        )
