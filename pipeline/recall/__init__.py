"""What Stepan recalls between messages: the section-9 shortcuts and the
conversation memory (issue 11 points 4 and 5).

``Recall`` is what the pipeline holds: on a deep request it first tries a shortcut;
otherwise it ends the conversations that are over (silence, another subject), hands
the newest summaries to the deep path (prompts and the composer's context) and keeps
the answer for the next shortcut.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import NamedTuple

from pipeline.recall.conversations import Conversations, PromptMemory, SummaryView
from pipeline.recall.rules import RecallRules
from pipeline.recall.shortcuts import Shortcuts
from pipeline.types import DeepRequest, DepthDecision, Reply

__all__ = [
    "Conversations",
    "DeepAnswer",
    "PromptMemory",
    "Recall",
    "RecallRules",
    "Shortcuts",
    "SummaryView",
]

logger = logging.getLogger(__name__)


class DeepAnswer(NamedTuple):
    decision: DepthDecision
    crew: tuple[str, ...]
    reply: Reply
    #: False: answered by a shortcut (recorded light).
    deep: bool


class Recall:
    def __init__(self, shortcuts: Shortcuts, conversations: Conversations) -> None:
        self.shortcuts = shortcuts
        self.conversations = conversations

    def route(self, text: str, decision: DepthDecision) -> DepthDecision:
        return self.shortcuts.route(text, decision)

    async def answer(
        self,
        request: DeepRequest,
        deep: Callable[[DeepRequest], Awaitable[Reply]],
        *,
        fresh: bool = False,
    ) -> DeepAnswer:
        """The deep request answered: from a shortcut unless ``fresh`` (a refresh),
        else by ``deep`` with the conversation memory. Memory that fails to read or
        write never costs the reply."""
        incoming, decision = request.incoming, request.decision
        if not fresh:
            try:
                hit = await self.shortcuts.lookup(
                    incoming.user_id,
                    incoming.text,
                    decision,
                    request.lang,
                    request.now,
                    timezone=request.farm.timezone,
                    trace_id=incoming.trace_id,
                )
            except Exception:
                logger.exception("recall: shortcut lookup failed trace=%s", incoming.trace_id)
                hit = None
            if hit is not None:
                return DeepAnswer(hit.decision, (), hit.reply, deep=False)
        conversations = self.conversations
        try:
            memory = await conversations.close_ended_for_prompt(
                incoming.user_id, str(decision.intent)
            )
        except Exception:
            logger.exception("recall: compacting failed trace=%s", incoming.trace_id)
            memory = PromptMemory(await conversations.for_prompt(incoming.user_id))
        reply = await deep(replace(request, recall=memory.lines, recalled=memory.related))
        try:
            await self.shortcuts.remember(
                incoming.user_id,
                incoming.text,
                decision,
                reply,
                trace_id=incoming.trace_id,
                now=request.now,
            )
        except Exception:
            logger.exception("recall: keeping the answer failed trace=%s", incoming.trace_id)
        return DeepAnswer(decision, request.crew, reply, deep=True)
