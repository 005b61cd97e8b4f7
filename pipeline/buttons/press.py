"""What a button's use case is given: the press, the presser's profile and the
reply language, decided once for the press as for a message."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pipeline.buttons.flow import FlowState
from pipeline.language.texts import Texts
from pipeline.memory import Loaded
from pipeline.types import Incoming, Reply

__all__ = ["Ask", "ButtonUse", "Press"]

#: Asks Stepan a message as if the presser had written it (``fresh``: no shortcut).
Ask = Callable[[Incoming, bool], Awaitable[Reply]]


@dataclass(frozen=True, slots=True)
class Press:
    incoming: Incoming
    texts: Texts
    loaded: Loaded
    now: datetime
    #: The steps the channel keeps for the presser (onboarding's, /me's name); None
    #: for a caller that keeps none.
    flow: FlowState | None = None


class ButtonUse(Protocol):
    """A use case behind one kind of button; None: the button no longer works
    (another user's, a forged value, something since removed)."""

    async def __call__(self, action: Any, press: Press) -> Reply | None: ...
