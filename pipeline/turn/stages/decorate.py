"""The stages that dress the reflected answer: a peer's offer, the onboarding offer,
the learning buttons, the operators' notes, and the reply itself."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from pipeline.actions import ItemAction, OnboardingAction, OnboardingChoice, SourceAction
from pipeline.agronomy.advisor import Advisor
from pipeline.agronomy.region import region_offer
from pipeline.intents import Intent
from pipeline.knowledge.model import Region
from pipeline.learning.desk import LearningDesk
from pipeline.peers.desk import HandoffDesk
from pipeline.replies.voice import operator_footer
from pipeline.turn.stage import Stage
from pipeline.turn.stages.entry import OfferForPicture, offers_agronomist
from pipeline.turn.turn import Buttons, Turn
from pipeline.types import Button, Reply

__all__ = [
    "Assemble",
    "EvalFootnote",
    "LearningButtons",
    "OnboardingOffer",
    "PeerOffer",
    "PictureNote",
    "RegionOffer",
]

logger = logging.getLogger(__name__)


def _paragraph(text: str, more: str) -> str:
    return f"{text}\n\n{more}" if text else more


@dataclass(frozen=True, slots=True)
class RegionOffer(Stage):
    """An oblast the farmer named («у нас Житомирщина», «коли сіяти на Поділлі?») while
    the farm's profile has none: the reply already used it; one tap keeps it. A
    message that only named it («у нас Житомирщина») is answered with that alone."""

    advisor: Advisor
    name = "region_offer"

    def applies(self, turn: Turn) -> bool:
        loaded = turn.loaded
        return loaded.known and not loaded.degraded and turn.route is None

    async def run(self, turn: Turn) -> None:
        region = turn.heard_region or await self._named(turn)
        if region is None:
            return
        line, row = region_offer(turn.texts, region)
        if turn.decision.intent in _ONLY_THE_PLACE:
            turn.text = turn.texts.text("region.heard", region=region.name.get(turn.lang))
        else:
            turn.text = _paragraph(turn.text, line)
        turn.buttons = (*turn.buttons, row)

    async def _named(self, turn: Turn) -> Region | None:
        """The oblast this message names, while the farm has none (one short read,
        only for a message that names one)."""
        region = self.advisor.said_region((turn.message.text,))
        if region is None or await self.advisor.farm_region(turn.message.user_id):
            return None
        return region


#: A message routed as one of these said nothing but the place.
_ONLY_THE_PLACE = frozenset({Intent.CLARIFY, Intent.GENERAL})


def _asks_only(buttons: tuple[tuple[Button, ...], ...]) -> bool:
    """Buttons that only ask for more (a card's other pest, its sources), nothing to
    confirm."""
    return all(
        isinstance(button.action, ItemAction | SourceAction) for row in buttons for button in row
    )


@dataclass(frozen=True, slots=True)
class PeerOffer(Stage):
    """The offer to pass a question on to a peer agent, or a hint that one exists."""

    peers: HandoffDesk
    name = "peer_offer"

    def applies(self, turn: Turn) -> bool:
        return turn.route is not None or turn.decision.intent == Intent.OFFTOPIC

    async def run(self, turn: Turn) -> None:
        route = turn.route
        if route is not None and turn.buttons and not _asks_only(turn.buttons):
            # Stepan's own part is a card (a journal entry to confirm): its buttons
            # stay, and the peer is only named.
            turn.text = f"{turn.text}\n\n{self.peers.pointer(route.peer, turn.lang)}"
        elif route is not None:
            offered = await self.peers.offer(
                user_id=turn.incoming.user_id, route=route, lang=turn.lang
            )
            # A card's other pests (buttons that only ask) stay above the offer's row.
            buttons = (*turn.buttons, *offered.buttons)
            turn.text, turn.buttons = _paragraph(turn.text, offered.text), buttons
        else:
            hint = self.peers.coordinator_hint(turn.lang)
            turn.text = f"{turn.text}\n\n{hint}" if hint else turn.text


class OnboardingOffer(Stage):
    """First contact: onboarding is offered so Stepan knows the farm from day one."""

    name = "onboarding_offer"

    def applies(self, turn: Turn) -> bool:
        return (
            turn.route is None and not turn.loaded.known and turn.decision.intent == Intent.GREETING
        )

    async def run(self, turn: Turn) -> None:
        texts = turn.texts
        turn.text = f"{turn.text}\n\n{texts.text('onboarding.offer')}"
        turn.buttons = (
            (
                Button(texts.text("onboarding.start"), OnboardingAction(OnboardingChoice.START)),
                Button(texts.text("onboarding.later"), OnboardingAction(OnboardingChoice.LATER)),
            ),
        )


@dataclass(frozen=True, slots=True)
class LearningButtons(Stage):
    """«Корисно?» under deep answers (not under acknowledgements or cards) and, for
    operators, «не туди» under every reply (docs/learning.md)."""

    learning: LearningDesk
    name = "learning_buttons"

    def applies(self, turn: Turn) -> bool:
        return bool(turn.text)

    async def run(self, turn: Turn) -> None:
        trace_id = turn.incoming.trace_id
        if turn.answered_deep and not turn.buttons and turn.route is None:
            turn.buttons = (*turn.buttons, self.learning.feedback_row(turn.lang, trace_id))
        if turn.incoming.is_operator:
            turn.buttons = (*turn.buttons, self.learning.misrouted_row(turn.lang, trace_id))


class EvalFootnote(Stage):
    """Operators only: the checks the reply failed (a farmer never sees them)."""

    name = "eval_footnote"

    def applies(self, turn: Turn) -> bool:
        return turn.incoming.is_operator and turn.evals is not None and bool(turn.evals.failed)

    async def run(self, turn: Turn) -> None:
        assert turn.evals is not None
        turn.text = f"{turn.text}\n\n{turn.evals.footnote(turn.lang)}"


class Assemble(Stage):
    """The reply: the text with the operator's technical footer last, the buttons,
    the attachments and what was decided."""

    name = "reply"
    required = True

    async def run(self, turn: Turn) -> None:
        answer, decision = turn.answer, turn.decision
        assert answer is not None
        footer = operator_footer(turn.texts, turn.incoming, decision, turn.crew, turn.text)
        turn.final = Reply(
            f"{turn.text}\n\n{footer}" if footer else turn.text,
            turn.buttons,
            footer=footer,
            document=answer.document,
            photo=answer.photo,
            mode=decision.mode,
            intent=decision.intent,
            crew=turn.crew,
        )


@dataclass(frozen=True, slots=True)
class PictureNote(Stage):
    """A captioned picture: after the caption's answer, that Stepan cannot judge a
    picture yet and, unless the answer is a card, the human agronomist offered."""

    offer: OfferForPicture
    name = "picture_note"

    def applies(self, turn: Turn) -> bool:
        return turn.incoming.photo and turn.final is not None

    async def run(self, turn: Turn) -> None:
        final = turn.final
        assert final is not None
        buttons: Buttons = final.buttons
        if _asks_only(buttons):  # a journal card keeps its own buttons
            try:
                buttons = (*buttons, *await self.offer(turn, turn.incoming.text.strip()))
            except Exception:
                logger.warning("photo: no agronomist offer", exc_info=True)
        offered = offers_agronomist(buttons)
        note = turn.texts.text("agronomy.photo_note_offer" if offered else "agronomy.photo_note")
        turn.final = replace(final, text=_paragraph(final.text, note), buttons=buttons)
