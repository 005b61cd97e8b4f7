"""Handing a farmer's off-topic question to a peer agent, only with their yes.

1. :meth:`HandoffDesk.offer` stores the question as a pending offer and returns the
   recommendation with two buttons («Передати питання Nutra?» yes / no).
2. :meth:`HandoffDesk.decide` takes the press. No: the decision is stored and
   nothing leaves. Yes: the contract is built (the question sanitised, farm facts
   only those the peer's entry allows and only when nothing confidential was
   found), sent as a NATS request on ``agent.{peer}.invoke`` within the peer's time
   budget, and the answer relayed labelled as the peer's. Without NATS, when nobody
   answers, or on timeout, the farmer gets the peer's handle and a deep link.

Each step is its own short transaction; the network call runs between them, never
inside one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from db.repositories import handoffs as repo
from db.uow import Database, Session
from pipeline.actions import HandoffAction, HandoffChoice
from pipeline.clock import Clock, utcnow
from pipeline.consent import record_press, store_offer
from pipeline.language.catalog import Catalog
from pipeline.language.choice import stored_language
from pipeline.peers.contract import MAX_GOAL_CHARS, Constraints, PeerContract, parse_answer
from pipeline.peers.directory import Peer, PeerDirectory
from pipeline.peers.link import PeerLink, PeerOffline, PeerTimeout
from pipeline.peers.routing import PeerRouter, Route
from pipeline.privacy import Sanitizer
from pipeline.profiles import FarmProfile
from pipeline.types import Button, Language, Reply

__all__ = ["HandoffDesk", "Offered"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Offered:
    text: str
    buttons: tuple[tuple[Button, ...], ...]


class HandoffDesk:
    def __init__(
        self,
        *,
        router: PeerRouter,
        sanitizer: Sanitizer,
        catalog: Catalog,
        database: Database,
        link: PeerLink | None,
        clock: Clock = utcnow,
    ) -> None:
        self._router = router
        self._directory: PeerDirectory = router.directory
        self._sanitizer = sanitizer
        self._catalog = catalog
        self._db = database
        self._link = link
        self._clock = clock

    @property
    def directory(self) -> PeerDirectory:
        return self._directory

    def route(self, text: str) -> Route | None:
        try:
            return self._router.route(text)
        except Exception:
            logger.exception("peers: routing failed; Stepan keeps the question")
            return None

    async def offer(self, *, user_id: str, route: Route, lang: Language) -> Offered:
        """The recommendation with yes / no buttons; without buttons (the handle and a
        link instead) if the offer could not be stored."""
        peer = route.peer
        names = self._names(peer, lang)

        async def store(session: Session) -> int:
            return await repo.add_offer(
                session,
                user_id=user_id,
                peer=peer.id,
                domain=peer.domain,
                language=lang,
                question=route.question[:MAX_GOAL_CHARS],
                partial=route.partial,
            )

        handoff_id = await store_offer(self._db, store, what=f"peers ({peer.id})")
        if handoff_id is None:
            return Offered(self.pointer(peer, lang), ())
        key = "peers.offer_rest" if route.partial else "peers.offer"
        text = self._catalog.text(lang, key, **names)
        buttons = (
            (
                Button(
                    self._catalog.text(lang, "peers.yes", peer=peer.name),
                    HandoffAction(HandoffChoice.YES, handoff_id),
                ),
                Button(
                    self._catalog.text(lang, "peers.no"),
                    HandoffAction(HandoffChoice.NO, handoff_id),
                ),
            ),
        )
        return Offered(text, buttons)

    def pointer(self, peer: Peer, lang: Language) -> str:
        """The peer's name, topic, handle and link: a recommendation without buttons."""
        return self._catalog.text(lang, "peers.offer_direct", **self._names(peer, lang))

    def coordinator_hint(self, lang: Language) -> str | None:
        """For an off-topic question no peer claims: the coordinator knows them all."""
        coordinator = self._directory.coordinator
        if coordinator is None:
            return None
        return self._catalog.text(lang, "peers.ask_coordinator", **self._names(coordinator, lang))

    async def decide(
        self,
        action: HandoffAction,
        *,
        user_id: str,
        lang: Language,
        known_names: Iterable[str] = (),
        farm: FarmProfile | None = None,
    ) -> Reply:
        async def decide(session: Session, consent: bool, at: datetime) -> repo.Offer | None:
            return await repo.decide(
                session, handoff_id=action.handoff_id, user_id=user_id, consent=consent, at=at
            )

        pressed = await record_press(self._db, action.choice, self._clock, decide)
        if pressed is None:
            return Reply(self._catalog.text(lang, "actions.expired"))
        offer = pressed.record
        lang = stored_language(offer.language)
        peer = self._directory.get(offer.peer)
        if not pressed.consent:
            name = peer.name if peer else offer.peer
            return Reply(self._catalog.text(lang, "peers.refused", peer=name))
        if peer is None:  # the directory lost this peer since the offer
            await self._finish(offer.id, False, "error", None, None)
            return Reply(self._catalog.text(lang, "actions.expired"))
        contract = self.contract(offer, peer, lang=lang, known_names=known_names, farm=farm)
        return await self._send(offer.id, peer, contract, lang)

    def contract(
        self,
        offer: repo.Offer,
        peer: Peer,
        *,
        lang: Language,
        known_names: Iterable[str] = (),
        farm: FarmProfile | None = None,
    ) -> PeerContract:
        """The ADR's contract for ``offer``, with nothing confidential in it."""
        clean = self._sanitizer.sanitize(
            offer.question, known_names=known_names, limit=MAX_GOAL_CHARS
        )
        me = self._directory.me
        summary = self._directory.summary_template.format(
            self_name=me.name, self_id=me.id, domain=peer.domain
        )
        # ADR: a confidential request travels with the sanitised question only.
        facts = "" if clean.confidential or farm is None else _facts(peer, farm)
        if facts:
            summary += " " + self._directory.summary_facts_template.format(facts=facts)
        privacy = "confidential" if clean.confidential else "team" if facts else "public"
        return PeerContract(
            intent=peer.intent,
            domain=peer.domain,
            user_goal=clean.text or "?",
            target_agent=peer.id,
            constraints=Constraints(
                max_response_time=peer.time_budget_s,
                format=peer.format,
                language=lang if lang in peer.languages else peer.languages[0],
            ),
            context_summary=self._sanitizer.sanitize(summary).text,
            sources=(f"{me.id}:handoff:{offer.id}",),
            privacy_level=privacy,
            requires_consent=True,
            source_agent=me.id,
        )

    async def _send(
        self, handoff_id: int, peer: Peer, contract: PeerContract, lang: Language
    ) -> Reply:
        names = self._names(peer, lang)
        link = self._link
        started = time.perf_counter()
        sent = False
        if link is None or not link.connected:
            outcome = "offline"
            payload = None
        else:
            try:
                payload = await link.request(
                    self._directory.invoke_subject(peer.id),
                    contract.to_json(),
                    timeout_s=float(peer.time_budget_s),
                )
                sent, outcome = True, "answered"
            except PeerTimeout:
                sent, outcome, payload = True, "timeout", None
            except PeerOffline:
                # Connected, but nobody listens on the peer's subject.
                outcome, payload = "no_responder", None
        latency = (time.perf_counter() - started) * 1000
        answer = parse_answer(payload, peer.id) if payload is not None else None
        if answer is not None and not answer.ok:
            outcome = "error"
        await self._finish(handoff_id, sent, outcome, contract.privacy_level, latency)
        if answer is not None and answer.ok:
            return Reply(self._catalog.text(lang, "peers.answer", text=answer.text, **names))
        key = {"timeout": "peers.timeout", "error": "peers.failed"}.get(
            outcome, "peers.unreachable"
        )
        text = self._catalog.text(lang, key, **names)
        if names["link"]:
            text += "\n" + self._catalog.text(lang, "peers.direct", **names)
        return Reply(text)

    async def _finish(
        self,
        handoff_id: int,
        sent: bool,
        outcome: str,
        privacy: str | None,
        latency_ms: float | None,
    ) -> None:
        try:
            async with self._db.write() as session:
                await repo.finish(
                    session,
                    handoff_id=handoff_id,
                    sent=sent,
                    outcome=outcome,
                    privacy_level=privacy,
                    latency_ms=latency_ms,
                    at=self._clock(),
                )
        except Exception:
            # The farmer still gets the answer; only the figure is lost.
            logger.warning("peers: could not record handoff %s", handoff_id, exc_info=True)

    def _names(self, peer: Peer, lang: Language) -> dict[str, str]:
        return {
            "peer": peer.name,
            "topic": peer.about.get(lang, peer.about.get("uk", "")),
            "handle": peer.telegram,
            "link": self._directory.deep_link(peer) or "",
        }


def _facts(peer: Peer, farm: FarmProfile) -> str:
    parts: list[str] = []
    for fact in peer.context:
        if fact == "crops" and farm.crop_ids:
            parts.append("crops " + ", ".join(farm.crop_ids[:10]))
        elif fact == "season_phase" and farm.seasonal_context.current_phase:
            parts.append(f"season phase {farm.seasonal_context.current_phase}")
        elif fact == "field_count" and farm.field_ids:
            parts.append(f"{len(farm.field_ids)} fields")
    return "; ".join(parts)
