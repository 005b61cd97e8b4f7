"""The nightly quality job (issue 13 point 5, docs/learning.md): which intents did
badly in the last day, and which routing changes the stored corrections support,
each verified (``pipeline.learning.proposals``) before operators see it.

It stores each proposal (``rule_proposals``, status ``pending``) and sends every
operator one summary and one message per proposal; an operator applies one with
``/rules approve N`` (or drops it with ``/rules reject N``), which writes a new
overlay version (``RuleOverlays.add``). Run by the scheduler once across instances.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from db.repositories import learning as repo
from db.repositories import quality
from db.states import RuleTermKind
from db.uow import Database
from pipeline.classifier import ClassifierRules
from pipeline.grammar import Grammar
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.choice import stored_language
from pipeline.language.texts import Texts
from pipeline.learning.config import NightlyRules
from pipeline.learning.overlay import OverlayTerm
from pipeline.learning.proposals import Example, Proposal, propose, stored_examples
from pipeline.types import Language

__all__ = ["IntentQuality", "NightlyJob", "NightlyResult"]

logger = logging.getLogger(__name__)

#: Text to one operator's chat in their language; the proposal's id when it is a
#: card (✅ / ❌ buttons, labelled in that language).
Send = Callable[[int, str, int | None, Language], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class IntentQuality:
    intent: str
    replies: int
    success_rate: float
    up: int
    down: int


@dataclass(frozen=True, slots=True)
class NightlyResult:
    weak: list[IntentQuality]
    proposals: list[tuple[int, Proposal]]  # (stored id, proposal)

    def describe(self) -> str:
        return f"weak intents {len(self.weak)}, proposals {len(self.proposals)}"


async def weak_intents(db: Database, since: datetime, rules: NightlyRules) -> list[IntentQuality]:
    """Intents with ``min_replies`` replies and a success rate (eval passed, no 👎)
    under the threshold, or more 👎 than 👍; one grouped SELECT."""
    async with db.read() as session:
        rows = await quality.intent_outcomes(session, since)
    out = []
    for intent, replies, bad, ups, downs in rows:
        replies, bad, ups, downs = int(replies), int(bad or 0), int(ups or 0), int(downs or 0)
        rate = round(max(0, replies - bad) / replies, 4) if replies else 1.0
        if replies >= rules.min_replies and (rate < rules.success_rate_min or downs > ups):
            out.append(IntentQuality(str(intent), replies, rate, ups, downs))
    return out


class NightlyJob:
    def __init__(
        self,
        db: Database,
        rules: NightlyRules,
        base: ClassifierRules,
        grammar: Grammar,
        dev: Sequence[Example],
        *,
        catalog: Catalog,
        operators: frozenset[int],
        send: Send | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = db
        self._rules = rules
        self._base = base
        self._grammar = grammar
        self._dev = dev
        self._catalog = catalog
        self._operators = operators
        self._send = send
        self._clock = clock

    @property
    def at(self) -> tuple[int, int]:
        """(hour, minute) in the farm's timezone."""
        return self._rules.hour, self._rules.minute

    def with_sender(self, send: Send) -> NightlyJob:
        """This job sending its messages with ``send`` (the bot exists only later)."""
        return NightlyJob(
            self._db, self._rules, self._base, self._grammar, self._dev,
            catalog=self._catalog, operators=self._operators, send=send, clock=self._clock,
        )  # fmt: skip

    async def run(self) -> NightlyResult:
        now = self._clock()
        weak = await weak_intents(self._db, now - timedelta(days=1), self._rules)
        async with self._db.read() as session:
            corrections = stored_examples(await repo.correction_examples(session))
            in_force = await repo.overlay_in_force(session)
            overlay = [OverlayTerm.of(t) for t in (in_force.terms if in_force else [])]
            pending = await repo.pending_proposal_terms(session)
        found = await asyncio.to_thread(
            propose, self._base, self._grammar, overlay, corrections, self._dev, self._rules
        )
        stored: list[tuple[int, Proposal]] = []
        async with self._db.write() as session:
            for p in found:
                if (p.term.intent.value, p.term.kind, p.term.term) in pending:
                    continue  # offered already, still waiting for an operator
                proposal_id = await repo.propose(
                    session,
                    intent=p.term.intent.value,
                    kind=RuleTermKind(p.term.kind),
                    term=p.term.term,
                    support=p.support,
                    dev_before=p.dev_before,
                    dev_after=p.dev_after,
                    corrections_before=p.corrections_before,
                    corrections_after=p.corrections_after,
                )
                stored.append((proposal_id, p))
        result = NightlyResult(weak, stored)
        await self._notify(result)
        return result

    async def _notify(self, result: NightlyResult) -> None:
        if self._send is None or not self._operators:
            return
        languages = await operator_languages(self._db, self._operators)
        texts = {
            lang: messages(Texts(self._catalog, lang), result) for lang in set(languages.values())
        }
        for operator in sorted(self._operators):
            lang = languages[operator]
            summary, cards = texts[lang]
            try:
                await self._send(operator, summary, None, lang)
                for (pid, _), card in zip(result.proposals, cards, strict=True):
                    await self._send(operator, card, pid, lang)
            except Exception:
                # One operator who blocked the bot must not keep the others uninformed;
                # the proposals stay stored either way (/rules approve N).
                logger.warning("nightly: could not reach operator %s", operator, exc_info=True)


async def operator_languages(db: Database, operators: frozenset[int]) -> dict[int, Language]:
    """Each operator's language: their profile's (``tg:<id>``), Ukrainian for an
    operator who never wrote to Stepan (and for all when profiles cannot be read:
    the proposals are stored already, the messages still go)."""
    try:
        async with db.read() as session:
            stored = await repo.languages_of(session, [f"tg:{op}" for op in operators])
    except Exception:
        logger.warning("nightly: operators' languages unreadable, using uk", exc_info=True)
        stored = {}
    return {op: stored_language(stored.get(f"tg:{op}")) for op in operators}


def intent_name(texts: Texts, intent: str) -> str:
    """An intent as operators read it («запис операції»), not its id."""
    known = intent in Intent._value2member_map_
    return texts.text(f"learning.intent.{intent}") if known else intent


def messages(texts: Texts, result: NightlyResult) -> tuple[str, list[str]]:
    """The summary and one card per proposal in ``lang``: intents by their names in
    that language, percentages with its decimal separator."""

    def percent(share: float) -> str:
        return texts.number(round(share * 100, 1))

    weak = ", ".join(
        texts.text("nightly.weak_item", intent=intent_name(texts, w.intent),
                     rate=round(w.success_rate * 100), replies=w.replies, up=w.up, down=w.down)
        for w in result.weak
    )  # fmt: skip
    summary = texts.text("nightly.summary", weak=weak or "—", proposals=len(result.proposals))
    cards = [
        texts.text(
            "nightly.card",
            id=pid,
            term=p.term.term,
            intent=intent_name(texts, p.term.intent.value),
            kind=texts.text(f"nightly.kind.{p.term.kind}"),
            support=p.support,
            dev_before=percent(p.dev_before),
            dev_after=percent(p.dev_after),
            corr_before=percent(p.corrections_before),
            corr_after=percent(p.corrections_after),
        )
        for pid, p in result.proposals
    ]
    return summary, cards
