"""Stepan answering a contract from another agent, through the same pipeline parts.

The asker is a stranger to Stepan: it is answered with a default profile and an empty
farm, and nothing about it is written (no profile, no interaction, no journal
draft). The contract's constraints are honoured: its language (one Stepan speaks),
its format (short / medium / detailed become Stepan's brief / conversational /
detailed styles); the caller enforces the time budget. A confidential contract is
answered without the LLM, which may be a third party's: templates and the offline
composer only.

Questions Stepan cannot answer for a stranger get a structured error, never a
made-up answer: a journal write or a report needs the farmer in Stepan, and a
question outside agronomy names the peer it belongs to when the directory knows one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Protocol

from pipeline import gate
from pipeline.clock import Clock, utcnow
from pipeline.deep import DeepPath, DeepTemplate
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.peers.contract import ContractError
from pipeline.peers.directory import PeerDirectory
from pipeline.profiles import FarmProfile, Style, UserProfile
from pipeline.replies import reflection
from pipeline.replies.light import LightRequest, LightResponder, LlmResponder
from pipeline.types import ClassifierContext, DeepRequest, DepthDecision, Incoming, Language

__all__ = ["FORMAT_STYLES", "NOT_FOR_STRANGERS", "PeerQuestion", "StrangerAnswerer"]

FORMAT_STYLES: dict[str, Style] = {
    "short": "brief",
    "medium": "conversational",
    "detailed": "detailed",
}
#: Intents that write to a farm or read one farm's own data: not for a stranger.
NOT_FOR_STRANGERS = frozenset(
    {
        Intent.RECORDING,
        Intent.MULTI_OPS,
        Intent.REPORTING,
        Intent.IOT,
        Intent.IOT_ALERT,
        Intent.SUMMARY,
        Intent.ANALYSIS,
        Intent.PLATFORM,
    }
)
#: The user id a stranger's question runs under: no profile or farm has it.
STRANGER_ID = "peer:stranger"


class _Classifier(Protocol):
    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...


@dataclass(frozen=True, slots=True)
class PeerQuestion:
    text: str
    lang: Language
    format: str
    confidential: bool


class StrangerAnswerer:
    def __init__(
        self,
        *,
        catalog: Catalog,
        classifier: _Classifier,
        responder: LightResponder,
        deep: DeepPath,
        directory: PeerDirectory,
        clock: Clock = utcnow,
    ) -> None:
        self._catalog = catalog
        self._classifier = classifier
        self._responder = responder
        self._deep = deep
        self._directory = directory
        self._clock = clock
        specs = getattr(classifier, "intents", {})
        self._light_intents = frozenset(
            intent for intent, spec in specs.items() if getattr(spec, "mode", "") == "light"
        )
        # Without the LLM: what a confidential question gets.
        self._offline_responder: LightResponder = LlmResponder(catalog)
        self._offline_deep: DeepPath = deep.offline() if isinstance(deep, DeepTemplate) else deep

    async def answer(self, question: PeerQuestion) -> str:
        """The answer text, or a ContractError saying why there is none."""
        other = self._directory.match(question.text)
        ctx = ClassifierContext(interaction_count=5, has_iot=False)
        decision = self._classifier.classify(question.text, ctx)
        if other is not None or decision.intent == Intent.OFFTOPIC:
            where = f"; ask {other.peer.id}" if other is not None else ""
            raise ContractError("out_of_domain", f"not an agronomy question{where}")
        if decision.intent in NOT_FOR_STRANGERS:
            raise ContractError(
                "action_not_allowed",
                f"{decision.intent} needs the farmer's own data in Stepan: ask them to write to it",
            )
        style = FORMAT_STYLES.get(question.format, "conversational")
        # A peer bot relays the answer: the reference voice, not a new farmer's
        # (a novice's explanations talk about Stepan's own journal and /me).
        profile = UserProfile.default(STRANGER_ID).model_copy(
            update={
                "preferred_style": style,
                "preferred_language": question.lang,
                "expertise_level": "intermediate",
            }
        )
        farm = FarmProfile.default(STRANGER_ID)
        # As the pipeline does: a light intent sent deep (low confidence) is still
        # answered as what it is.
        if decision.mode == "light" or decision.intent in self._light_intents:
            responder = self._offline_responder if question.confidential else self._responder
            text = await responder.answer(
                LightRequest(
                    decision=decision,
                    profile=profile,
                    farm=farm,
                    lang=question.lang,
                    is_operator=False,
                    first_contact=False,
                    text=question.text,
                )
            )
        else:
            incoming = Incoming(
                user_id=STRANGER_ID,
                chat_id=0,
                text=question.text,
                trace_id=uuid.uuid4().hex,
            )
            crew = gate.select_crew(decision, has_iot=False)
            request = DeepRequest(
                incoming, decision, crew, profile, farm, question.lang, self._clock()
            )
            deep = self._offline_deep if question.confidential else self._deep
            reply = await deep.answer(request)
            if reply.buttons or reply.document or reply.photo:
                raise ContractError("action_not_allowed", "the answer needs the farmer in Stepan")
            text = reply.text
        return reflection.reflect(text, profile, "peer")
