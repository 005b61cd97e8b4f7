"""The pipeline: one message in, one reply out; one pressed button in, one reply out.

A message is a Turn through the stages of pipeline/turn/chain.py, in the seed's
order (section 2): guard -> profile -> language -> classify -> answer (light,
advice, shortcut, deep) -> reflect -> record -> decorate, the gate released when
the turn ends. The runner (pipeline/turn/runner.py) owns the fail-safe policy: no
failure reaches the user as a crash (seed section 10). A button goes through the
registry of pipeline/buttons/. The pipeline owns its transactions: each stage that
touches the database opens its own short one through the service it calls
(docs/ARCHITECTURE.md, "Transactions"), so none is open while a reply is composed
or an LLM is waited for.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from pipeline.actions import Action
from pipeline.agronomy.advisor import Advisor
from pipeline.buttons import ButtonRegistry
from pipeline.buttons.flow import FlowState
from pipeline.deep import DeepPath
from pipeline.farm.journal.export import JournalExport
from pipeline.farm.journal.service import Journal
from pipeline.language.catalog import Catalog
from pipeline.language.choice import message_language
from pipeline.language.texts import Texts
from pipeline.peers.desk import HandoffDesk
from pipeline.recall import Recall
from pipeline.replies.light import LightResponder
from pipeline.turn.chain import button_uses, message_stages
from pipeline.turn.parts import Parts
from pipeline.turn.runner import Chain
from pipeline.turn.stages.routing import DepthClassifier
from pipeline.turn.turn import Turn
from pipeline.types import Incoming, Reply
from pipeline.weather.geo import Point

__all__ = ["Parts", "Pipeline"]

logger = logging.getLogger(__name__)


class Pipeline:
    def __init__(self, parts: Parts) -> None:
        self._build(parts)

    def _build(self, parts: Parts) -> None:
        self.parts = parts
        self.chain = Chain(message_stages(parts))
        self.buttons = ButtonRegistry(
            button_uses(parts, self._ask),
            catalog=parts.catalog,
            profiles=parts.profiles,
            languages=parts.languages,
            clock=parts.clock,
        )

    def swap(self, **changes: Any) -> None:
        """Other parts in place (a test's or a benchmark's deep path, clock, responder):
        the chain is rebuilt from them."""
        self._build(replace(self.parts, **changes))

    async def handle_message(self, incoming: Incoming, *, fresh: bool = False) -> Reply:
        """Never raises: a failure anywhere still gives the user a polite reply.
        ``fresh``: no shortcut (the refresh button under a remembered answer)."""
        parts = self.parts
        turn = Turn(
            incoming,
            Texts(parts.catalog, message_language(incoming)),
            started=time.perf_counter(),
            now=parts.clock(),
            fresh=fresh,
        )
        return await self.chain.run(turn)

    async def handle_action(
        self, action: Action, incoming: Incoming, flow: FlowState | None = None
    ) -> Reply:
        """A pressed button. It comes from a client, so it is checked again there.
        ``flow``: the steps the channel keeps for the presser (onboarding's)."""
        return await self.buttons.press(action, incoming, flow)

    async def handle_location(self, incoming: Incoming, latitude: float, longitude: float) -> Reply:
        """A location sent alone: is it the farm, or which field? (docs/weather.md)
        Never raises."""
        texts = await self.buttons.texts_for(incoming)
        point = Point.checked(latitude, longitude)
        places = self.parts.places
        if places is None or point is None:
            return Reply(texts.text("bot.non_text"))
        try:
            return await places.ask(incoming, point, texts)
        except Exception:
            logger.exception("location failed trace=%s", incoming.trace_id)
            return Reply(texts.text("faults.database"))

    async def _ask(self, incoming: Incoming, fresh: bool) -> Reply:
        return await self.handle_message(incoming, fresh=fresh)

    @property
    def catalog(self) -> Catalog:
        return self.parts.catalog

    @property
    def classifier(self) -> DepthClassifier:
        return self.parts.classifier

    @property
    def responder(self) -> LightResponder:
        return self.parts.responder

    @property
    def deep(self) -> DeepPath:
        return self.parts.deep

    @property
    def journal(self) -> Journal:
        return self.parts.journal

    @property
    def advisor(self) -> Advisor | None:
        return self.parts.advisor

    @property
    def recall(self) -> Recall | None:
        return self.parts.recall

    @property
    def peers(self) -> HandoffDesk | None:
        return self.parts.peers

    @property
    def exports(self) -> JournalExport | None:
        return self.parts.exports
