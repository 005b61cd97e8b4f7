"""The walk of a message and of a button, in one place (docs/ARCHITECTURE.md).

``message_stages`` lists the stages in the order they run; a part the deployment
goes without has no stage. ``button_uses`` maps each kind of pipeline button to its
use case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pipeline.actions import (
    CorrectionAction,
    EntryAction,
    ExampleAction,
    FeedbackAction,
    FeedbackReasonAction,
    HandoffAction,
    ItemAction,
    JournalAction,
    JournalReportAction,
    LocationAction,
    OnboardingAction,
    ReadingAction,
    RefreshAction,
    SourceAction,
    StyleAction,
)
from pipeline.agronomy.advisor import AdviceRequest, Advisor
from pipeline.buttons import Ask, ButtonUse
from pipeline.buttons import uses as button
from pipeline.buttons.location import LocationButton
from pipeline.intents import Intent
from pipeline.turn.parts import Parts
from pipeline.turn.stage import Stage
from pipeline.turn.stages import after, answers, decorate, entry, routing
from pipeline.turn.turn import Buttons, Turn
from pipeline.weather.sowing import SoilCheck
from pipeline.weather.spraying import SprayCheck

__all__ = ["NOT_YET", "button_uses", "message_stages"]

#: Intents recognised before their capability lands: an honest reply (answers.NotYet).
#: A correction the journal cannot read (answers.JournalEdit answered nothing) says so;
#: the weather is one only where the chain has no weather desk.
NOT_YET = frozenset({Intent.WEATHER, Intent.CORRECTION})

P = TypeVar("P")


def _if(part: P | None, stage: Callable[[P], Stage]) -> list[Stage]:
    return [] if part is None else [stage(part)]


def message_stages(parts: Parts) -> list[Stage]:
    offer = picture_offer(parts.advisor)
    recall, advisor = parts.recall, parts.advisor
    return [
        entry.Guard(),
        entry.LoadProfile(parts.profiles),
        entry.ChooseLanguage(parts.languages),
        entry.Picture(offer),
        *_if(parts.learning, routing.Corrections),
        *_if(parts.peers, routing.PeerRoute),
        *_if(parts.rules_refresh, routing.RefreshRules),
        routing.Classify(parts.classifier, parts.force_deep),
        *([] if advisor is None else [routing.AdviceRoute(advisor.kb)]),
        *_if(recall, routing.ShortcutRoute),
        routing.SelectCrew(),
        answers.JournalEdit(parts.journal.edits),
        # A question only where a press can answer it (the learning desk keeps it).
        *([] if parts.learning is None else [answers.Readings()]),
        answers.LightAnswer(parts.responder, routing.light_intents(parts.classifier)),
        answers.NotYet(NOT_YET if parts.weather is None else NOT_YET - {Intent.WEATHER}),
        *_weather(parts),
        *_if(advisor, answers.AdviceAnswer),
        *_spray_window(parts),
        *_sowing_soil(parts),
        *_if(recall, answers.Shortcut),
        *_if(recall, answers.Memory),
        answers.DeepAnswer(parts.deep),
        *_planned_spraying(parts),
        *_if(recall, answers.Remember),
        after.Reflect(),
        *_if(parts.evals, after.Evaluate),
        after.Record(parts.interactions),
        *_if(parts.peers, decorate.PeerOffer),
        *_if(advisor, decorate.RegionOffer),
        decorate.OnboardingOffer(),
        *_if(parts.learning, decorate.LearningButtons),
        decorate.EvalFootnote(),
        decorate.Assemble(),
        decorate.PictureNote(offer),
    ]


def _spray(parts: Parts) -> SprayCheck | None:
    """Spray windows need the advisor's cards, with a spraying card that states its
    limits, and the weather desk."""
    if parts.advisor is None or parts.weather is None:
        return None
    return SprayCheck.of(parts.advisor.kb)


def _weather(parts: Parts) -> list[Stage]:
    if parts.weather is None:
        return []
    return [answers.WeatherAnswer(parts.weather, _spray(parts))]


def _spray_window(parts: Parts) -> list[Stage]:
    """The spray windows under the spraying card's answer."""
    spray = _spray(parts)
    if parts.weather is None or spray is None:
        return []
    return [answers.SprayWindow(parts.weather, spray)]


def _planned_spraying(parts: Parts) -> list[Stage]:
    """The spray windows of the day under a card that plans a spraying."""
    spray = _spray(parts)
    if parts.weather is None or spray is None:
        return []
    return [answers.PlannedSpraying(parts.weather, spray, parts.journal)]


def _sowing_soil(parts: Parts) -> list[Stage]:
    """The soil's warmth under a sowing answer: the advisor's cards and the weather."""
    if parts.advisor is None or parts.weather is None:
        return []
    return [answers.SowingSoil(parts.weather, SoilCheck(parts.advisor.kb))]


def picture_offer(advisor: Advisor | None) -> entry.OfferForPicture:
    """The agronomist button for a picture (none without the advisor's desk)."""

    async def offer(turn: Turn, question: str) -> Buttons:
        if advisor is None:
            return ()
        incoming = turn.incoming
        return await advisor.offer(
            AdviceRequest(incoming.user_id, question, turn.lang, turn.profile, turn.loaded.farm,
                          turn.now, incoming.photo_id)
        )  # fmt: skip

    return offer


def button_uses(parts: Parts, ask: Ask) -> dict[type, ButtonUse]:
    uses: dict[type, Any] = {
        OnboardingAction: button.OnboardingLater(),
        JournalAction: button.JournalButton(parts.journal),
        EntryAction: button.EntryButton(parts.journal),
        ExampleAction: button.ExampleButton(ask),
        StyleAction: button.StyleButton(parts.editor),
    }
    if parts.peers is not None:
        uses[HandoffAction] = button.HandoffButton(parts.peers)
    if parts.learning is not None:
        learning = button.LearningButton(parts.learning)
        uses |= {
            FeedbackAction: learning,
            FeedbackReasonAction: learning,
            CorrectionAction: learning,
            ReadingAction: button.ReadingButton(parts.learning, ask),
        }
    if parts.recall is not None:
        uses[RefreshAction] = button.RefreshButton(parts.recall, ask)
    if parts.exports is not None:
        uses[JournalReportAction] = button.JournalReportButton(parts.exports)
    if parts.places is not None:
        uses[LocationAction] = LocationButton(parts.places)
    if parts.advisor is not None:
        uses[ItemAction] = button.ItemButton(parts.advisor)
        uses[SourceAction] = button.SourceButton(parts.advisor)
    return uses | dict(parts.buttons)
