"""👍 / 👎 / 🛠 under deep answers, the learnings they leave, and the LEARNINGS block.

A feedback press is a use case of its own: one write transaction finds the reply's
interaction (by its trace id; only the person it was sent to, or an operator, may
rate it), stores the verdict once per person and reply (a double tap counts once)
and, for 👎 and 🛠, a learning: a short rule built from the context (the intent and
the 👎 reason), never from the farmer's words, because learnings go into every
user's LLM prompts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from db.errors import IntegrityError
from db.models import FeedbackRow, LearningRow
from db.repositories import learning as repo
from db.uow import Database
from pipeline.learning.config import LearningRules
from pipeline.learning.kinds import FeedbackReason, FeedbackVerdict

logger = logging.getLogger(__name__)

#: How long a process serves the LEARNINGS block before reading it again (another
#: instance may have added or deleted one).
BLOCK_TTL_S = 60.0
#: Learnings read for the block: more than ever fit in prompt_chars.
BLOCK_ROWS = 100


class FeedbackOutcome(StrEnum):
    RECORDED = "recorded"
    #: The same person already rated this reply: the tap does not count again.
    DUPLICATE = "duplicate"
    #: No such reply of this person (an old button, a forged trace id).
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class LearningItem:
    id: int
    source: str
    intent: str | None
    rule: str
    created_at: datetime


def prompt_block(rules: Sequence[str], header: str, limit: int) -> str:
    """The LEARNINGS block: ``rules`` newest first, whole lines, at most ``limit``
    characters in all (header included); empty without rules."""
    lines = [header]
    size = len(header)
    for rule in rules:
        line = f"- {' '.join(rule.split())}"
        if size + 1 + len(line) > limit:
            break
        lines.append(line)
        size += 1 + len(line)
    return "\n".join(lines) if len(lines) > 1 else ""


class Learnings:
    """The learnings table and its prompt block, cached per process."""

    def __init__(
        self,
        db: Database,
        rules: LearningRules,
        *,
        ttl_s: float = BLOCK_TTL_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._db = db
        self._rules = rules
        self._ttl_s = ttl_s
        self._monotonic = monotonic
        self._block = ""
        self._loaded_at: float | None = None

    @property
    def rules(self) -> LearningRules:
        return self._rules

    @property
    def block(self) -> str:
        """What the LLM prompts append (sync: the LLM client reads it per call)."""
        return self._block

    async def refresh(self, *, force: bool = False) -> str:
        """Re-read the block when it is older than the TTL; never raises."""
        now = self._monotonic()
        if not force and self._loaded_at is not None and now - self._loaded_at < self._ttl_s:
            return self._block
        try:
            async with self._db.read() as session:
                rows = await repo.newest_learnings(session, BLOCK_ROWS)
            self._block = prompt_block(
                [row.rule for row in rows], self._rules.header, self._rules.prompt_chars
            )
            self._loaded_at = now
        except Exception:
            logger.warning("learnings: could not read them", exc_info=True)
        return self._block

    async def items(self, limit: int = 30) -> list[LearningItem]:
        async with self._db.read() as session:
            rows = await repo.newest_learnings(session, limit)
        return [LearningItem(r.id, r.source, r.intent, r.rule, r.created_at) for r in rows]

    async def delete(self, learning_id: int) -> bool:
        async with self._db.write() as session:
            deleted = await repo.delete_learning(session, learning_id)
        if deleted:
            await self.refresh(force=True)
        return deleted

    async def add(self, source: str, intent: str | None, rule: str, trace_id: str | None) -> None:
        async with self._db.write() as session:
            repo.add_learning(
                session, LearningRow(source=source, intent=intent, rule=rule, trace_id=trace_id)
            )
        await self.refresh(force=True)


class FeedbackDesk:
    def __init__(
        self,
        db: Database,
        learnings: Learnings,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = db
        self._learnings = learnings
        self._clock = clock

    async def record(
        self, *, user_id: str, trace_id: str, verdict: FeedbackVerdict, operator: bool
    ) -> FeedbackOutcome:
        rules = self._learnings.rules
        try:
            async with self._db.write() as session:
                row = await repo.interaction(session, trace_id)
                if row is None or (row.user_id != user_id and not operator):
                    return FeedbackOutcome.UNKNOWN
                if await repo.feedback(session, trace_id, user_id) is not None:
                    return FeedbackOutcome.DUPLICATE
                now = self._clock()
                repo.add_feedback(
                    session,
                    FeedbackRow(
                        trace_id=trace_id,
                        user_id=user_id,
                        verdict=verdict,
                        intent=row.intent,
                        created_at=now,
                    ),
                )
                if verdict is not FeedbackVerdict.UP:
                    source = "negative" if verdict is FeedbackVerdict.DOWN else "fixit"
                    repo.add_learning(
                        session,
                        LearningRow(
                            source=source,
                            intent=row.intent,
                            rule=rules.rule(source, row.intent),
                            trace_id=trace_id,
                            created_at=now,
                        ),
                    )
        except IntegrityError:
            # Two taps raced past the check (PostgreSQL): the unique key kept one.
            return FeedbackOutcome.DUPLICATE
        if verdict is not FeedbackVerdict.UP:
            await self._learnings.refresh(force=True)
        return FeedbackOutcome.RECORDED

    async def reason(self, *, user_id: str, trace_id: str, reason: FeedbackReason) -> bool:
        """👎's follow-up: the reason sharpens that reply's learning. Once per 👎."""
        rules = self._learnings.rules
        async with self._db.write() as session:
            row = await repo.feedback(session, trace_id, user_id)
            if row is None or row.verdict != FeedbackVerdict.DOWN or row.reason is not None:
                return False
            row.reason = reason
            learning = await repo.learning_for(session, trace_id)
            rule = rules.rule(reason, row.intent or "")
            if learning is None:
                repo.add_learning(
                    session,
                    LearningRow(source="negative", intent=row.intent, rule=rule, trace_id=trace_id),
                )
            else:
                learning.rule = rule
        await self._learnings.refresh(force=True)
        return True
