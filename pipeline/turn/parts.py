"""What the chain is built from: the factory (bot/wiring/factory.py) fills it once.

The parts a deployment may go without (peers, checks, the learning desk, the
advisor, recall, the journal report) are None when absent; the chain
(pipeline/turn/chain.py) then simply has no stage for them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from pipeline.agronomy.advisor import Advisor
from pipeline.buttons.press import ButtonUse
from pipeline.clock import Clock, utcnow
from pipeline.deep import DeepPath
from pipeline.farm.journal.export import JournalExport
from pipeline.farm.journal.service import Journal
from pipeline.language.catalog import Catalog
from pipeline.language.choice import LanguageRules
from pipeline.learning.desk import LearningDesk
from pipeline.learning.evals import EvalRules
from pipeline.memory import InteractionRecorder, ProfileEditor, ProfileLoader
from pipeline.peers.desk import HandoffDesk
from pipeline.recall import Recall
from pipeline.replies.light import LightResponder
from pipeline.turn.stages.routing import DepthClassifier
from pipeline.weather.answers import WeatherDesk
from pipeline.weather.places import FarmPlaces

__all__ = ["Parts"]


@dataclass(frozen=True, slots=True)
class Parts:
    catalog: Catalog
    classifier: DepthClassifier
    profiles: ProfileLoader
    interactions: InteractionRecorder
    editor: ProfileEditor
    responder: LightResponder
    deep: DeepPath
    journal: Journal
    clock: Clock = utcnow
    #: AGX_FORCE_DEEP / --deep: every message goes the deep path.
    force_deep: bool = False
    #: When the reply language switches (rules/language.toml); None: each message's
    #: own script decides.
    languages: LanguageRules | None = None
    #: Picks up an approved routing-rules overlay (pipeline/learning/overlay.py).
    rules_refresh: Callable[[], Awaitable[None]] | None = None
    #: Peer agents (docs/peers.md).
    peers: HandoffDesk | None = None
    #: Checks on every reply (docs/learning.md).
    evals: EvalRules | None = None
    learning: LearningDesk | None = None
    #: Agronomy questions (docs/knowledge.md); without it they go the deep path.
    advisor: Advisor | None = None
    #: Shortcuts and conversation memory (pipeline/recall/).
    recall: Recall | None = None
    #: The journal list's report button (pipeline/farm/journal/export.py).
    exports: JournalExport | None = None
    #: Farms and fields on the map: a location's question and its buttons (docs/weather.md).
    places: FarmPlaces | None = None
    #: Weather answers from the forecast cache (docs/weather.md); without it the
    #: weather intent is answered as not yet served (answers.NotYet).
    weather: WeatherDesk | None = None
    #: Use cases of buttons outside the chain's own parts (the operators', /me's,
    #: onboarding's), by action type; the factory adds them to the one registry.
    buttons: Mapping[type, ButtonUse] = field(default_factory=dict)
