"""What a button's use case may read and change of the steps the channel keeps
between one user's messages: onboarding's step, /me's "the next message is the
name". The bot keeps them in aiogram's FSM (bot/handlers/_flow.py); the pipeline
only sees this protocol."""

from __future__ import annotations

from typing import Protocol

from pipeline.onboarding.flow import Step, Turn

__all__ = ["FlowState", "keep"]


class FlowState(Protocol):
    async def step(self) -> Step | None:
        """The onboarding step kept (also while onboarding waits); None: none."""
        ...

    async def attempts(self) -> int:
        """Unusable answers given to the kept step so far."""
        ...

    async def answering(self) -> bool:
        """Onboarding waits for an answer to its step (not paused, not another state)."""
        ...

    async def wait(self, step: Step, attempts: int) -> None:
        """Onboarding asks ``step`` and takes the next answer as its."""
        ...

    async def pause(self) -> None:
        """Onboarding waits under «Продовжити знайомство» (the step is kept)."""
        ...

    async def clear(self) -> None:
        """No state any more: the next message is an ordinary one."""
        ...

    async def ask_name(self) -> None:
        """/me's ✏️: the next message is the user's name."""
        ...

    async def forget(self) -> None:
        """/forget: every state of the user goes, their private chat's too."""
        ...


async def keep(state: FlowState, turn: Turn) -> None:
    """Onboarding's next step kept, or onboarding over."""
    if turn.step is None:
        await state.clear()
    else:
        await state.wait(turn.step, turn.attempts)
