"""Corrections: a reply marked as misrouted becomes a labelled example.

An operator marks any reply from its 🔀 button; a farmer who answers a wrong reply
with «ні, я хотів …» is offered the same correction for their previous message. The
right intent is chosen by button; its mode and crew come from the classifier's rules.
Corrections are what the nightly job learns routing proposals from
(pipeline/learning/nightly.py), so the message text is kept with them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from db.models import CorrectionRow, LearningRow
from db.repositories import learning as repo
from db.states import CorrectionSource, LearningSource, RouteMode
from db.uow import Database
from pipeline.classifier.rules import IntentSpec
from pipeline.intents import Intent
from pipeline.learning.feedback import Learnings

logger = logging.getLogger(__name__)


class Corrections:
    def __init__(
        self,
        db: Database,
        learnings: Learnings,
        intents: Mapping[Intent, IntentSpec],
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = db
        self._learnings = learnings
        self._intents = intents
        self._clock = clock

    @property
    def choices(self) -> tuple[Intent, ...]:
        """The intents a correction may name (those the rules route to)."""
        return tuple(self._intents)

    async def correct(
        self, *, trace_id: str, intent: Intent, user_id: str, operator: bool
    ) -> str | None:
        """Store that message ``trace_id`` meant ``intent``, and return its text; None
        when there is no such message of this user (or its text is gone) or the intent
        is not routable."""
        spec = self._intents.get(intent)
        if spec is None:
            return None
        rules = self._learnings.rules
        async with self._db.write() as session:
            row = await repo.interaction(session, trace_id)
            if row is None or not row.text or (row.user_id != user_id and not operator):
                return None
            existing = await repo.correction(session, trace_id)
            target = existing or CorrectionRow(trace_id=trace_id, user_id=row.user_id)
            target.source = CorrectionSource.OPERATOR if operator else CorrectionSource.FARMER
            target.text = row.text
            target.was_mode, target.was_intent = row.mode, row.intent
            target.mode, target.intent, target.crew = (
                RouteMode(spec.mode),
                intent.value,
                list(spec.crew),
            )
            target.created_at = self._clock()
            if existing is None:
                repo.add_correction(session, target)
            if row.intent != intent:
                repo.add_learning(
                    session,
                    LearningRow(
                        source=LearningSource.CORRECTION,
                        intent=intent.value,
                        rule=rules.rule("correction", intent.value, row.intent),
                        trace_id=trace_id,
                    ),
                )
        await self._learnings.refresh(force=True)
        return row.text

    async def previous(self, user_id: str) -> tuple[str, str] | None:
        """The user's last message (trace id, intent), for a farmer's «ні, я хотів …»."""
        async with self._db.read() as session:
            row = await repo.last_interaction(session, user_id)
        return None if row is None else (row.trace_id, row.intent)
