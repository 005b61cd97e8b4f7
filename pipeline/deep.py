"""The deep path: real work for deep intents.

This module holds the request type, the protocol every deep path implements, and
the offline one, which runs the farm services directly (no LLM needed).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from pipeline.farm.journal import Journal
from pipeline.i18n import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import DepthDecision, Incoming, Language, Reply

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DeepRequest:
    incoming: Incoming
    decision: DepthDecision
    crew: tuple[str, ...]
    profile: UserProfile
    farm: FarmProfile
    lang: Language
    now: datetime


class DeepPath(Protocol):
    async def answer(self, request: DeepRequest, session: AsyncSession) -> Reply: ...


class OfflineDeepPath:
    """Deep answers from the farm services alone."""

    def __init__(self, catalog: Catalog, journal: Journal) -> None:
        self._catalog = catalog
        self._journal = journal

    async def answer(self, request: DeepRequest, session: AsyncSession) -> Reply:
        intents = (request.decision.intent, *request.decision.matched_intents)
        if "recording" in intents or ("multi_ops" in intents and "ops" in request.crew):
            card = await self._journal.propose(
                session,
                user_id=request.incoming.user_id,
                chat_id=request.incoming.chat_id,
                message_id=request.incoming.message_id,
                text=request.incoming.text,
                lang=request.lang,
                today=request.now.date(),
            )
            return card or Reply(self._catalog.text(request.lang, "journal.not_understood"))
        label = self._catalog.text(request.lang, f"intent.{request.decision.intent}")
        return Reply(self._catalog.text(request.lang, "deep.pending", intent=label))
