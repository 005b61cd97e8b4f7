"""The seed's section-9 shortcuts (issue 11 point 4; docs/deep-path.md "Shortcuts").

* The same intent and subject again within ``repeat.window_seconds``: the previous
  deep answer, marked as such, with a refresh button, instead of the crew again.
* «який статус», «що зараз»: the last status answer while it is younger than
  ``status.max_age_seconds``; without one the question goes deep (the journal's
  plans, the sensors and the open alerts) and that answer becomes the cache.

Both are answered light, recorded with the reason ``shortcut:repeat`` or
``shortcut:status``. The answers live in SQL (``answer_cache``), so every instance
sees them; a deep card reply drops them (with its interaction record), /forget
deletes them, the retention job drops week-old ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from db.repositories import recall as repo
from db.repositories.reporting import as_utc
from db.states import AnswerSlot
from db.uow import Database
from pipeline.actions import RefreshAction
from pipeline.farm.localtime import local_time
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.recall.rules import RecallRules
from pipeline.recall.subject import is_status_question, subject_of
from pipeline.types import Button, DepthDecision, Language, Reply

REPEAT, STATUS = AnswerSlot.REPEAT, AnswerSlot.STATUS
#: The classifier's reason on a status question sent deep (no fresh cache yet).
STATUS_REASON = "status"
#: What the classifier may say of a status question: nothing farming of its own.
_NOT_FARMING = frozenset({Intent.CLARIFY, Intent.GENERAL, Intent.UNKNOWN, Intent.SMALLTALK})


@dataclass(frozen=True, slots=True)
class Shortcut:
    decision: DepthDecision
    reply: Reply


class Shortcuts:
    def __init__(self, db: Database, catalog: Catalog, rules: RecallRules) -> None:
        self._db = db
        self._catalog = catalog
        self._rules = rules

    def route(self, text: str, decision: DepthDecision) -> DepthDecision:
        """A status question goes deep to the journal and the sensors (or, with a fresh
        cache, is answered from it by :meth:`lookup`)."""
        if decision.intent not in _NOT_FARMING or set(decision.matched_intents) - _NOT_FARMING:
            return decision
        if not is_status_question(text, self._rules.status):
            return decision
        intents = (Intent.GENERAL, Intent.IOT_ALERT)
        return DepthDecision(
            "deep", Intent.GENERAL, self._rules.status.crew, 1.0, STATUS_REASON, intents
        )

    async def lookup(
        self, user_id: str, text: str, decision: DepthDecision, lang: Language, now: datetime,
        *, timezone: str, trace_id: str,
    ) -> Shortcut | None:  # fmt: skip
        status = decision.reason == STATUS_REASON
        if not status and decision.intent not in self._rules.repeat.intents:
            return None
        async with self._db.read() as session:
            row = await repo.remembered_answer(session, user_id, STATUS if status else REPEAT)
        if row is None:
            return None
        age = now - as_utc(row.created_at)
        if status:
            fresh = age < self._rules.status.max_age
        else:
            fresh = (
                age < self._rules.repeat.window
                and row.intent == decision.intent
                and row.subject == subject_of(text, self._rules.subject)
            )
        if not fresh or age.total_seconds() < 0:
            return None
        kind = STATUS if status else REPEAT
        when = f"{local_time(row.created_at, timezone):%H:%M}"
        note = self._catalog.text(lang, f"recall.{kind}_note", time=when)
        refresh = Button(self._catalog.text(lang, "recall.refresh"), RefreshAction(trace_id))
        return Shortcut(
            DepthDecision("light", decision.intent, (), 1.0, f"shortcut:{kind}"),
            Reply(f"{note}\n\n{row.text}", ((refresh,),), intent=decision.intent),
        )

    async def remember(
        self, user_id: str, text: str, decision: DepthDecision, reply: Reply, *,
        trace_id: str, now: datetime,
    ) -> None:  # fmt: skip
        """Keep a deep answer for the shortcuts: one that only read the farm's data (no
        card, no buttons, no file). A card is not kept, and makes the pipeline forget
        what was remembered (:meth:`forgets`)."""
        if self.forgets(reply) or not reply.text or reply.document or reply.photo:
            return
        slots = []
        if decision.reason == STATUS_REASON:
            slots.append((STATUS, ""))
        if decision.intent in self._rules.repeat.intents:
            slots.append((REPEAT, subject_of(text, self._rules.subject)))
        if not slots:
            return
        async with self._db.write() as session:
            for slot, subject in slots:
                await repo.remember_answer(
                    session,
                    user_id=user_id,
                    slot=slot,
                    intent=str(decision.intent),
                    subject=subject,
                    trace_id=trace_id,
                    text=reply.text,
                    created_at=now,
                )

    @staticmethod
    def forgets(reply: Reply) -> bool:
        """A card may write to the journal: then what is remembered may be out of date
        («сплануй тиждень» before and after a recorded operation), so the user's
        remembered answers go, in the transaction that records the interaction
        (``InteractionRecord.forget_answers``), not one of their own."""
        return bool(reply.buttons)

    async def original(self, user_id: str, trace_id: str) -> str | None:
        """The question a refresh button re-asks: the presser's own message only."""
        async with self._db.read() as session:
            return await repo.message_text(session, user_id, trace_id)
