"""The Turn: one update on its way through the stages (pipeline/turn/chain.py).

Each stage reads what the stages before it put here and adds its own part: the
profile, the language, the decision and crew, the answer, the text as reflected and
decorated, the buttons and the final reply. A stage that needs something an earlier
stage was to set asks for it through a property that fails loudly if the chain was
put together in the wrong order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from pipeline.knowledge.model import Region
from pipeline.language.choice import LanguageChoice
from pipeline.language.texts import Texts
from pipeline.learning.evals import EvalResult
from pipeline.memory import Loaded
from pipeline.peers.routing import Route
from pipeline.profiles import UserProfile
from pipeline.recall import PromptMemory
from pipeline.types import Button, DepthDecision, Incoming, Language, Reply

__all__ = ["Buttons", "StageOrderError", "Turn"]

Buttons = tuple[tuple[Button, ...], ...]


class StageOrderError(RuntimeError):
    """A stage asked for something no stage before it has set: a wiring mistake."""


def _needs(value: object, what: str) -> None:
    if value is None:
        raise StageOrderError(f"no stage before this one has set the turn's {what}")


@dataclass(slots=True)
class Turn:
    #: The update as it came in (what is recorded).
    incoming: Incoming
    #: The catalog in the reply language: the incoming script's until the language
    #: stage decides the conversation's.
    texts: Texts
    #: perf_counter() when the update arrived (the recorded latency).
    started: float
    now: datetime
    #: No shortcut: the refresh button under a remembered answer.
    fresh: bool = False
    #: What Stepan answers: the incoming message, less a peer's part or a photo.
    work: Incoming | None = None
    spoken: LanguageChoice | None = None
    route: Route | None = None
    crew: tuple[str, ...] = ()
    #: The answer of the answering stage, before reflection and decoration.
    answer: Reply | None = None
    #: The deep path answered (not a shortcut, the light path or a card).
    answered_deep: bool = False
    #: The user's remembered answers go (recall: a card may change the journal).
    forgets: bool = False
    #: The conversation summaries the deep path is given (pipeline/recall/).
    memory: PromptMemory | None = None
    #: An oblast the answer used that the farm's profile lacks (named in the message
    #: or a message before it): decorate.RegionOffer offers to keep it.
    heard_region: Region | None = None
    #: The reply text as reflected, then decorated.
    text: str = ""
    buttons: Buttons = ()
    evals: EvalResult | None = None
    footer: str = ""
    #: The reply the user gets; set by the last stage or by one that ends the turn.
    final: Reply | None = None
    #: Set by ``finish``: no stage after runs.
    done: bool = False
    #: Called when the turn ends, however it ends, last registered first.
    on_exit: list[Callable[[], None]] = field(default_factory=list)
    _loaded: Loaded | None = None
    _profile: UserProfile | None = None
    _decision: DepthDecision | None = None

    @property
    def lang(self) -> Language:
        return self.texts.lang

    @property
    def message(self) -> Incoming:
        return self.work if self.work is not None else self.incoming

    @property
    def loaded(self) -> Loaded:
        _needs(self._loaded, "loaded profile")
        assert self._loaded is not None
        return self._loaded

    @property
    def profile(self) -> UserProfile:
        _needs(self._profile, "profile")
        assert self._profile is not None
        return self._profile

    def load(self, loaded: Loaded, profile: UserProfile) -> None:
        self._loaded, self._profile = loaded, profile

    @property
    def decided(self) -> bool:
        return self._decision is not None

    @property
    def decision(self) -> DepthDecision:
        _needs(self._decision, "decision")
        assert self._decision is not None
        return self._decision

    @decision.setter
    def decision(self, decision: DepthDecision) -> None:
        self._decision = decision

    @property
    def peer_only(self) -> bool:
        """The whole message is for a peer agent: Stepan only offers to pass it on."""
        return self.route is not None and self.route.own_text is None

    def finish(self, reply: Reply) -> None:
        """End the turn with this reply: no stage after this one runs."""
        self.final, self.done = reply, True
