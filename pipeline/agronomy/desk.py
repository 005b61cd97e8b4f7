"""The agronomist desk: a question the knowledge base is unsure of goes to a human.

1. :meth:`AgronomistDesk.offer` stores the question with the card the operators will
   see (the question and the farm context, sanitised by ``pipeline/privacy``: no
   phone numbers, no names) and returns the «Передати агрономові» button.
2. :meth:`AgronomistDesk.decide`: on yes the question is pending and the card goes
   to the operators (the channel sends it); on no nothing leaves.
3. :meth:`AgronomistDesk.answer`: an operator's ``/answer N text`` is stored as a
   candidate card for review and delivered to the farmer, labelled as the
   agronomist's. ``/questions`` lists what is pending.
4. :meth:`AgronomistDesk.expire`: a question nobody answered within the expiry
   (``STEPAN_AGRONOMIST_EXPIRY_HOURS``) is marked expired and the farmer is told so
   politely (the ``agronomist_expiry`` job); a late answer is still delivered.

The offer and the press follow the shape the peer desk shares (pipeline/consent.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from db.repositories import agronomist as repo
from db.uow import Database, Session
from pipeline.actions import AgronomistAction, HandoffChoice
from pipeline.clock import Clock, utcnow
from pipeline.consent import record_press, store_offer
from pipeline.language.catalog import Catalog
from pipeline.language.choice import stored_language
from pipeline.privacy import Sanitizer
from pipeline.profiles import FarmProfile
from pipeline.types import Button, Language

__all__ = ["AgronomistDesk", "Decided", "Delivery"]

logger = logging.getLogger(__name__)

#: The longest question or answer the desk keeps.
MAX_CHARS = 1500
#: A question nobody answered is closed after this (STEPAN_AGRONOMIST_EXPIRY_HOURS).
DEFAULT_EXPIRY = timedelta(hours=72)


@dataclass(frozen=True, slots=True)
class Decided:
    #: For the farmer.
    text: str
    #: For the operators: None unless the farmer said yes.
    card: str | None = None
    #: The picture asked about (a Telegram file id), sent to the operators with the card.
    photo: str | None = None


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
        expiry: timedelta = DEFAULT_EXPIRY,
    ) -> None:
        self._catalog = catalog
        self._db = database
        self._sanitizer = sanitizer
        self._clock = clock
        self.expiry = expiry

    async def offer(
        self,
        *,
        user_id: str,
        question: str,
        lang: Language,
        farm: FarmProfile | None = None,
        region: str | None = None,
        known_names: Iterable[str] = (),
        photo: str | None = None,
    ) -> tuple[tuple[Button, ...], ...]:
        """The button row under an unsure answer (or a picture: ``photo`` is its file
        id); none if the question could not be stored."""
        names = tuple(known_names)
        clean = self._sanitizer.sanitize(question, known_names=names, limit=MAX_CHARS).text
        # The card's lines stay lines: its parts are sanitised, not the card.
        context = self._sanitizer.sanitize(self._context(farm, region), known_names=names).text

        async def store(session: Session) -> int:
            question_id = await repo.add_offer(
                session,
                user_id=user_id,
                language=lang,
                question=question[:MAX_CHARS],
                card="",
                photo=photo,
            )
            # The operators' card names the question by its number.
            card = self._catalog.text(
                "uk", "agronomist.card", id=question_id, question=clean or "?", context=context
            )
            await repo.set_card(session, question_id, card)
            return question_id

        question_id = await store_offer(self._db, store, what="agronomist")
        if question_id is None:
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
        async def decide(session: Session, consent: bool, at: datetime) -> repo.Question | None:
            return await repo.decide(
                session, question_id=action.question_id, user_id=user_id, consent=consent, at=at
            )

        pressed = await record_press(self._db, action.choice, self._clock, decide)
        if pressed is None:
            return Decided(self._catalog.text(lang, "actions.expired"))
        question = pressed.record
        lang = stored_language(question.language)
        if not pressed.consent:
            return Decided(self._catalog.text(lang, "agronomist.refused"))
        return Decided(
            self._catalog.text(lang, "agronomist.sent", id=question.id),
            card=question.card,
            photo=question.photo,
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
        lang = stored_language(question.language)
        return Delivery(
            question.user_id,
            self._catalog.text(lang, "agronomist.answer", question=question.question, text=text),
        )

    async def expire(self) -> list[Delivery]:
        """Close the questions nobody answered within the expiry; the farmer's notice
        for each (sent by the job, once across instances)."""
        async with self._db.write() as session:
            expired = await repo.expire_pending_before(session, self._clock() - self.expiry)
        hours = round(self.expiry.total_seconds() / 3600)
        return [
            Delivery(
                question.user_id,
                self._catalog.text(
                    stored_language(question.language),
                    "agronomist.expired",
                    id=question.id,
                    question=question.question,
                    hours=hours,
                ),
            )
            for question in expired
        ]

    async def of_user(self, user_id: str, limit: int) -> list[repo.Question]:
        """The farmer's own questions to the agronomist and their state (/myquestions)."""
        async with self._db.read() as session:
            return await repo.of_user(session, user_id, limit)

    async def pending(self, limit: int) -> list[repo.Question]:
        async with self._db.read() as session:
            return await repo.pending(session, limit)
