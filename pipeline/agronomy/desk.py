"""The agronomist desk: a question the knowledge base is unsure of goes to a human.

1. :meth:`AgronomistDesk.offer` stores the question with the card the operators will
   see (the question and the farm context, sanitised by ``pipeline/privacy``: no
   phone numbers, no names) and returns the «Передати агрономові» button.
2. :meth:`AgronomistDesk.decide`: on yes the question is pending and the card goes
   to the operators (the channel sends it); on no nothing leaves.
3. :meth:`AgronomistDesk.answer`: an operator's ``/answer N text`` is stored as a
   candidate card for review and delivered to the farmer, labelled as the
   agronomist's. ``/questions`` lists what is pending.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from db.repositories import agronomist as repo
from db.uow import Database
from pipeline.actions import AgronomistAction, HandoffChoice
from pipeline.clock import Clock, utcnow
from pipeline.i18n import Catalog
from pipeline.privacy import Sanitizer
from pipeline.profiles import FarmProfile
from pipeline.types import Button, Language

__all__ = ["AgronomistDesk", "Decided", "Delivery"]

logger = logging.getLogger(__name__)

#: The longest question or answer the desk keeps.
MAX_CHARS = 1500


def _lang(value: str) -> Language:
    return "en" if value == "en" else "uk"


@dataclass(frozen=True, slots=True)
class Decided:
    #: For the farmer.
    text: str
    #: For the operators: None unless the farmer said yes.
    card: str | None = None


@dataclass(frozen=True, slots=True)
class Delivery:
    """The agronomist's answer for the farmer ``user_id``."""

    user_id: str
    text: str


class AgronomistDesk:
    def __init__(
        self,
        *,
        catalog: Catalog,
        database: Database,
        sanitizer: Sanitizer,
        clock: Clock = utcnow,
    ) -> None:
        self._catalog = catalog
        self._db = database
        self._sanitizer = sanitizer
        self._clock = clock

    async def offer(
        self,
        *,
        user_id: str,
        question: str,
        lang: Language,
        farm: FarmProfile | None = None,
        region: str | None = None,
        known_names: Iterable[str] = (),
    ) -> tuple[tuple[Button, ...], ...]:
        """The button row under an unsure answer; none if the question could not be stored."""
        names = tuple(known_names)
        clean = self._sanitizer.sanitize(question, known_names=names, limit=MAX_CHARS).text
        context = self._context(farm, region)
        try:
            async with self._db.write() as session:
                question_id = await repo.add_offer(
                    session,
                    user_id=user_id,
                    language=lang,
                    question=question[:MAX_CHARS],
                    card="",
                )
                # The operators' card names the question by its number.
                card = self._catalog.text(
                    "uk", "agronomist.card", id=question_id, question=clean or "?", context=context
                )
                card = self._sanitizer.sanitize(card, known_names=names).text
                await repo.set_card(session, question_id, card)
        except Exception:
            logger.warning("agronomist: could not store a question", exc_info=True)
            return ()
        return (
            (
                Button(
                    self._catalog.text(lang, "agronomist.button"),
                    AgronomistAction(HandoffChoice.YES, question_id),
                ),
            ),
        )

    def _context(self, farm: FarmProfile | None, region: str | None) -> str:
        parts: list[str] = []
        if region:
            parts.append(self._catalog.text("uk", "agronomist.context_region", region=region))
        if farm is not None and farm.crop_ids:
            crops = ", ".join(farm.crop_ids[:10])
            parts.append(self._catalog.text("uk", "agronomist.context_crops", crops=crops))
        if farm is not None and farm.field_ids:
            parts.append(
                self._catalog.text("uk", "agronomist.context_fields", count=len(farm.field_ids))
            )
        return "; ".join(parts) or self._catalog.text("uk", "agronomist.context_none")

    async def decide(self, action: AgronomistAction, *, user_id: str, lang: Language) -> Decided:
        consent = action.choice == HandoffChoice.YES
        async with self._db.write() as session:
            question = await repo.decide(
                session,
                question_id=action.question_id,
                user_id=user_id,
                consent=consent,
                at=self._clock(),
            )
        if question is None:
            return Decided(self._catalog.text(lang, "actions.expired"))
        lang = _lang(question.language)
        if not consent:
            return Decided(self._catalog.text(lang, "agronomist.refused"))
        return Decided(
            self._catalog.text(lang, "agronomist.sent", id=question.id), card=question.card
        )

    async def answer(self, question_id: int, text: str, *, operator: int) -> Delivery | None:
        """Store the answer to pending question ``question_id`` and word it for the
        farmer; None for an unknown, unsent or already answered question."""
        text = text.strip()[:MAX_CHARS]
        async with self._db.write() as session:
            question = await repo.answer(
                session, question_id=question_id, text=text, operator=operator, at=self._clock()
            )
        if question is None:
            return None
        lang = _lang(question.language)
        return Delivery(
            question.user_id,
            self._catalog.text(lang, "agronomist.answer", question=question.question, text=text),
        )

    async def pending(self, limit: int) -> list[repo.Question]:
        async with self._db.read() as session:
            return await repo.pending(session, limit)
