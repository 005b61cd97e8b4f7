"""Stepan as a peer: it answers contracts on ``agent.agromatrix.invoke`` and tells a
coordinator who it is on ``agent.agromatrix.card``.

Every request gets an answer: a valid contract the answer text, anything else a
structured error (invalid JSON, a missing field, another agent's contract, a
language Stepan does not speak, a question outside agronomy, a blown time budget).
Each one is counted in ``handoffs`` (direction "in"), without its text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from db.repositories import handoffs as repo
from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.language.choice import stored_language
from pipeline.peers.answer import PeerQuestion, StrangerAnswerer
from pipeline.peers.contract import ContractError, PeerAnswer, PeerContract
from pipeline.peers.directory import PeerDirectory
from pipeline.peers.link import PeerLink, PeerOffline
from pipeline.privacy import Sanitizer

__all__ = ["PeerServer"]

logger = logging.getLogger(__name__)

#: Stepan answers this much before the sender's deadline, so the reply arrives in time.
REPLY_MARGIN_S = 0.5
MIN_BUDGET_S = 0.5


class PeerServer:
    def __init__(
        self,
        *,
        directory: PeerDirectory,
        answerer: StrangerAnswerer,
        sanitizer: Sanitizer,
        database: Database,
        link: PeerLink,
        clock: Clock = utcnow,
    ) -> None:
        self._directory = directory
        self._me = directory.me
        self._answerer = answerer
        self._sanitizer = sanitizer
        self._db = database
        self._link = link
        self._clock = clock

    @property
    def invoke_subject(self) -> str:
        return self._directory.invoke_subject(self._me.id)

    @property
    def card_subject(self) -> str:
        return self._directory.card_subject(self._me.id)

    async def start(self) -> None:
        # One queue group: with several instances each request is answered once.
        await self._link.serve(self.invoke_subject, self.handle, queue=self._me.id)
        await self._link.serve(self.card_subject, self._card_request, queue=self._me.id)
        self._link.on_connect(self.publish_card)

    def card(self) -> bytes:
        body = self._me.card(invoke_subject=self.invoke_subject)
        return json.dumps(body, ensure_ascii=False).encode()

    async def publish_card(self) -> None:
        try:
            await self._link.publish(self.card_subject, self.card())
        except PeerOffline:
            logger.info("peers: card not published (NATS away); it is sent on reconnect")

    async def _card_request(self, _payload: bytes) -> bytes:
        return self.card()

    async def handle(self, payload: bytes) -> bytes:
        """One request in, one JSON reply out. Never raises."""
        started = time.perf_counter()
        contract: PeerContract | None = None
        try:
            contract = PeerContract.parse(payload)
            self._check(contract)
            text = await self._answer(contract)
            answer = PeerAnswer(self._me.id, text=text, language=contract.constraints.language)
        except ContractError as exc:
            answer = PeerAnswer(self._me.id, error=exc)
        except Exception:
            logger.exception("peers: answering a contract failed")
            answer = PeerAnswer(
                self._me.id, error=ContractError("internal_error", "Stepan could not answer")
            )
        await self._record(contract, answer, (time.perf_counter() - started) * 1000)
        return answer.to_json()

    def _check(self, contract: PeerContract) -> None:
        if contract.target_agent != self._me.id:
            raise ContractError(
                "wrong_target",
                f"this is {self._me.id}, not {contract.target_agent}",
                "target_agent",
            )
        if contract.constraints.language not in self._me.languages:
            spoken = ", ".join(self._me.languages)
            raise ContractError(
                "unsupported_language",
                f"Stepan answers in {spoken}",
                "constraints.language",
            )

    async def _answer(self, contract: PeerContract) -> str:
        confidential = contract.privacy_level == "confidential"
        goal = contract.user_goal
        if confidential:
            # The sender should have stripped it; Stepan checks again before any model
            # or log can see it.
            goal = self._sanitizer.sanitize(goal).text
        lang = stored_language(contract.constraints.language)
        question = PeerQuestion(goal, lang, contract.constraints.format, confidential)
        budget = max(MIN_BUDGET_S, contract.constraints.max_response_time - REPLY_MARGIN_S)
        try:
            return await asyncio.wait_for(self._answerer.answer(question), budget)
        except TimeoutError:
            raise ContractError(
                "time_budget_exceeded",
                f"no answer within {contract.constraints.max_response_time:g} s",
                "constraints.max_response_time",
            ) from None

    async def _record(
        self, contract: PeerContract | None, answer: PeerAnswer, latency_ms: float
    ) -> None:
        outcome = "answered" if answer.error is None else answer.error.code
        try:
            async with self._db.write() as session:
                await repo.add_served(
                    session,
                    peer=(contract.source_agent if contract else None) or "unknown",
                    domain=contract.domain if contract else "unknown",
                    language=contract.constraints.language if contract else "",
                    outcome=outcome,
                    privacy_level=contract.privacy_level if contract else None,
                    latency_ms=latency_ms,
                    at=self._clock(),
                )
        except Exception:
            # Counting must never cost the asker its answer.
            logger.warning("peers: could not record a served contract", exc_info=True)
