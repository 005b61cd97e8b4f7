"""The stages that decide what the message is: corrections, the peer route, the
routing rules, the classifier, and the routes that send a decision elsewhere."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

from pipeline import gate
from pipeline.agronomy.advisor import as_advice, names_subject_only, wants_advice
from pipeline.intents import Intent
from pipeline.knowledge.base import KnowledgeBase
from pipeline.learning.desk import LearningDesk
from pipeline.peers.desk import HandoffDesk
from pipeline.profiles import FarmProfile, UserProfile, recent_advice
from pipeline.recall import Recall
from pipeline.turn.stage import Stage
from pipeline.turn.turn import Turn
from pipeline.types import ClassifierContext, DepthDecision, Reply

__all__ = [
    "COMMAND_INTENTS",
    "AdviceRoute",
    "Classify",
    "Corrections",
    "DepthClassifier",
    "PeerRoute",
    "RefreshRules",
    "SelectCrew",
    "ShortcutRoute",
    "light_intents",
]

# Bot commands that mean a light intent; they go through the same pipeline so they
# are counted, styled and recorded like any message.
COMMAND_INTENTS = {"/start": Intent.GREETING, "/help": Intent.HELP}


#: A threshold breach this recent sends the next message down the deep path.
RECENT_ALERT_WINDOW = timedelta(hours=24)


def classifier_context(
    profile: UserProfile, farm: FarmProfile, *, operator: bool, force_deep: bool, now: datetime
) -> ClassifierContext:
    """What the classifier may know about the sender (LABELS.md `ctx`)."""
    last_alert = farm.iot_sensors.last_alert
    return ClassifierContext(
        interaction_count=profile.interaction_count,
        has_iot=farm.has_iot,
        operator=operator,
        force_deep=force_deep,
        recent_alert=last_alert is not None and now - last_alert < RECENT_ALERT_WINDOW,
        pending_terms=farm.dict_pending_count,
        recent_advice=recent_advice(profile, now),
        grows_crops=bool(farm.crop_ids),
        typical_intents=tuple(farm.typical_intents),
    )


class DepthClassifier(Protocol):
    def classify(self, text: str, ctx: ClassifierContext) -> DepthDecision: ...

    def chosen(self, intent: Intent) -> DepthDecision: ...


def light_intents(classifier: DepthClassifier) -> frozenset[str]:
    """The intents the classifier's rules mark light (none if it does not say)."""
    intents = getattr(classifier, "intents", {})
    return frozenset(name for name, spec in intents.items() if getattr(spec, "mode", "") == "light")


class _Undecided(Stage):
    """A stage with work only while no decision is made (a peer-only message has one)."""

    def applies(self, turn: Turn) -> bool:
        return not turn.decided


@dataclass(frozen=True, slots=True)
class Corrections(Stage):
    """The learning desk's offer to correct the last routing (docs/learning.md)."""

    learning: LearningDesk
    name = "corrections"

    async def run(self, turn: Turn) -> None:
        offer = await self.learning.before(turn.incoming, turn.lang)
        if offer is not None:
            turn.finish(offer)


@dataclass(frozen=True, slots=True)
class PeerRoute(Stage):
    """A question for a peer agent (docs/peers.md): Stepan answers its own part, if
    there is one, and offers to pass on the rest; nothing leaves without a yes."""

    peers: HandoffDesk
    name = "peer_route"

    def applies(self, turn: Turn) -> bool:
        text = turn.message.text
        return bool(text) and not text.startswith("/")

    async def run(self, turn: Turn) -> None:
        route = self.peers.route(turn.message.text)
        if route is None:
            return
        turn.route = route
        if route.own_text is not None:
            turn.work = replace(turn.message, text=route.own_text)
            return
        turn.decision = DepthDecision("light", Intent.OFFTOPIC, (), 1.0, f"peer:{route.peer.id}")
        turn.answer = Reply("")  # the offer (decorate.PeerOffer) is the whole answer


@dataclass(frozen=True, slots=True)
class RefreshRules(_Undecided):
    """Picks up an approved routing-rules overlay (pipeline/learning/overlay.py);
    cheap: it reads the database at most every 30 s."""

    refresh: Callable[[], Awaitable[None]]
    name = "rules_refresh"

    async def run(self, turn: Turn) -> None:
        await self.refresh()


@dataclass(frozen=True, slots=True)
class Classify(_Undecided):
    """The depth decision: a command's intent, else the rule-based classifier; the
    fail-safe decision (deep, clarify) when it raises."""

    classifier: DepthClassifier
    force_deep: bool = False
    name = "classify"

    async def run(self, turn: Turn) -> None:
        message, loaded = turn.message, turn.loaded
        words = message.text.split(maxsplit=1)
        command = words[0].split("@", 1)[0] if words else ""
        if command in COMMAND_INTENTS:
            turn.decision = DepthDecision(
                "light", COMMAND_INTENTS[command], (), 1.0, f"command:{command}"
            )
            return
        if message.chosen is not None:
            turn.decision = self.classifier.chosen(message.chosen)
            return
        ctx = classifier_context(
            loaded.profile,
            loaded.farm,
            operator=message.is_operator,
            force_deep=self.force_deep,
            now=turn.now,
        )
        turn.decision = self.classifier.classify(message.text, ctx)

    async def fallback(self, turn: Turn) -> None:
        turn.decision = DepthDecision.fail_safe()


class _Routed(Stage):
    """A stage that re-routes the classifier's decision (not a peer-only message)."""

    def applies(self, turn: Turn) -> bool:
        return not turn.peer_only


@dataclass(frozen=True, slots=True)
class AdviceRoute(_Routed):
    """Agronomy questions go to the advisor (docs/knowledge.md), and so does a message
    nothing understood that names a crop, a pest or a nutrient."""

    kb: KnowledgeBase
    name = "advice_route"

    async def run(self, turn: Turn) -> None:
        decision = turn.decision
        if wants_advice(decision) or names_subject_only(decision, turn.message.text, self.kb):
            turn.decision = as_advice(decision)


@dataclass(frozen=True, slots=True)
class ShortcutRoute(_Routed):
    """A question a shortcut may answer is sent deep (pipeline/recall/shortcuts.py)."""

    recall: Recall
    name = "shortcut_route"

    async def run(self, turn: Turn) -> None:
        turn.decision = self.recall.route(turn.message.text, turn.decision)


class SelectCrew(Stage):
    """The smallest set of sub-agents a deep decision needs (pipeline/gate.py)."""

    name = "crew"
    required = True

    async def run(self, turn: Turn) -> None:
        decision = turn.decision
        if decision.mode == "deep":
            turn.crew = gate.select_crew(decision, has_iot=turn.loaded.farm.has_iot)
