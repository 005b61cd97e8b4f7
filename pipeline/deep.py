"""The deep path: one template for every deep request (docs/deep-path.md).

``DeepTemplate.answer`` always does the same four things:

1. plan: the composer prepares the request's run context (the consent card when
   the message records an operation, the farm, the database for the tools);
2. run the agents the activation gate selected, side by side (at most
   ``max_parallel_agents`` at a time), each part written by the part producer;
3. fall back per agent: a part the producer fails to write is composed from that
   agent's tools directly, so one broken agent never costs the farmer the others;
4. consolidate: Stepan's own facts, then the producer's answer from the parts.

What differs is only who writes the parts and the answer (the part producer):

* ``ComposerParts`` (``pipeline/crew/composer.py``): the agent's tools run directly
  and the answer is composed from templates. No LLM needed: the default.
* ``CrewParts`` (``pipeline/crew/orchestrator.py``): each agent is a CrewAI crew
  and Stepan consolidates with one LLM call and one reflection pass.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from pipeline.crew.composer import AgentPart, Composer, ComposerParts, card_only
from pipeline.crew.context import RunContext
from pipeline.crew.llm import describe, is_unavailable
from pipeline.types import DeepRequest, Reply

logger = logging.getLogger(__name__)


class DeepPath(Protocol):
    """What the pipeline calls for a deep request (tests and benchmarks substitute it)."""

    async def answer(self, request: DeepRequest) -> Reply: ...


class PartProducer(Protocol):
    """Writes the agents' parts and Stepan's answer for one kind of deep path."""

    #: Names the producer in the log and in each part's ``source``.
    source: str

    async def brief(self, request: DeepRequest, ctx: RunContext) -> None:
        """Gather what every agent of the request shares, before any of them starts."""
        ...

    async def part(self, request: DeepRequest, agent: str, ctx: RunContext) -> AgentPart:
        """One agent's part. Raising hands the agent to the composer's fallback."""
        ...

    async def consolidate(
        self,
        request: DeepRequest,
        ctx: RunContext,
        parts: Sequence[AgentPart],
        own: str | None,
    ) -> Reply:
        """Stepan's reply from the agents' parts and his own facts."""
        ...


class DeepTemplate:
    def __init__(self, composer: Composer, producer: PartProducer, *, max_parallel: int) -> None:
        self._composer = composer
        self._producer = producer
        self._max_parallel = max(1, max_parallel)

    @property
    def producer(self) -> PartProducer:
        return self._producer

    def offline(self) -> DeepTemplate:
        """The same template with the composer writing every part: no LLM call (for a
        peer's confidential question, docs/peers.md)."""
        parts = ComposerParts(self._composer)
        return DeepTemplate(self._composer, parts, max_parallel=self._max_parallel)

    async def answer(self, request: DeepRequest) -> Reply:
        ctx = await self._composer.prepare(request)
        if card_only(request, ctx):
            # The card alone, verbatim: no agent, no LLM to write around it.
            logger.info(
                "deep: card only intent=%s trace=%s",
                request.decision.intent,
                request.incoming.trace_id,
            )
            return self._composer.reply(request, ctx, [], None)
        await self._producer.brief(request, ctx)
        # Per request: the crew's worker pool already bounds the process as a whole.
        slots = asyncio.Semaphore(self._max_parallel)
        parts = list(
            await asyncio.gather(*(self._part(request, name, ctx, slots) for name in request.crew))
        )
        own = await self._composer.own_facts(request, ctx)
        logger.info(
            "deep: %s intent=%s agents=%s sources=%s trace=%s",
            self._producer.source,
            request.decision.intent,
            ",".join(request.crew) or "-",
            ",".join(f"{p.agent}:{p.source}" for p in parts) or "-",
            request.incoming.trace_id,
        )
        return await self._producer.consolidate(request, ctx, parts, own)

    async def _part(
        self, request: DeepRequest, agent: str, ctx: RunContext, slots: asyncio.Semaphore
    ) -> AgentPart:
        async with slots:
            try:
                return await self._producer.part(request, agent, ctx)
            except Exception as exc:
                logger.warning(
                    "deep: agent %s failed (%s), composing from its tools trace=%s",
                    agent,
                    describe(exc),
                    request.incoming.trace_id,
                )
                fallback = await self._composer.run_agent(request, agent, ctx)
                return replace(
                    fallback,
                    source="composer",
                    error=describe(exc),
                    llm_unavailable=is_unavailable(exc),
                )
