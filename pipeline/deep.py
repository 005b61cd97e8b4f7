"""The deep path: real work for deep intents.

This module holds the request type, the protocol every deep path implements, and
the offline one: the selected agents' tools run directly and the composer writes
the answer (no LLM needed). With an LLM configured, ``pipeline.crew.orchestrator``
runs the CrewAI crew instead and falls back to the composer agent by agent.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pipeline.crew.composer import Composer
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
    async def answer(self, request: DeepRequest) -> Reply: ...


class ComposerDeepPath:
    """Deep answers from the farm services alone: the default without an LLM."""

    def __init__(self, composer: Composer) -> None:
        self._composer = composer

    @property
    def composer(self) -> Composer:
        return self._composer

    async def answer(self, request: DeepRequest) -> Reply:
        logger.info(
            "deep: composer intent=%s crew=%s trace=%s",
            request.decision.intent,
            ",".join(request.crew) or "-",
            request.incoming.trace_id,
        )
        return await self._composer.answer(request)
