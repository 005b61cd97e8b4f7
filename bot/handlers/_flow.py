"""The steps Stepan keeps between one user's messages, in aiogram's FSM: onboarding's
step and /me's "the next message is the name". ``FsmFlow`` is the pipeline's
``FlowState`` (pipeline/buttons/flow.py) over an ``FSMContext``."""

from __future__ import annotations

from dataclasses import replace

from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup

from pipeline.onboarding.flow import Step


class Onboarding(StatesGroup):
    active = State()
    #: A message that was not an answer was handled; the step waits for «Продовжити».
    paused = State()


class MeEdit(StatesGroup):
    name = State()


class FsmFlow:
    """``private_chat``: the user's private chat (their Telegram id), whose state
    /forget clears too."""

    def __init__(self, state: FSMContext, private_chat: int | None = None) -> None:
        self._state = state
        self._private_chat = private_chat

    async def step(self) -> Step | None:
        value = (await self._state.get_data()).get("step")
        return Step(value) if isinstance(value, str) and value in set(Step) else None

    async def attempts(self) -> int:
        value = (await self._state.get_data()).get("attempts")
        return value if isinstance(value, int) else 0

    async def answering(self) -> bool:
        return await self._state.get_state() == Onboarding.active.state

    async def wait(self, step: Step, attempts: int) -> None:
        await self._state.set_state(Onboarding.active)
        await self._state.update_data(step=step.value, attempts=attempts)

    async def pause(self) -> None:
        await self._state.set_state(Onboarding.paused)

    async def clear(self) -> None:
        await self._state.clear()

    async def ask_name(self) -> None:
        await self._state.set_state(MeEdit.name)

    async def forget(self) -> None:
        """Onboarding's step (in Redis with several instances, without expiry) would
        otherwise take the next message as an answer and create the profile again. The
        private chat's state is cleared even when the button was pressed elsewhere."""
        state = self._state
        await state.clear()
        if self._private_chat is None:
            return
        user = self._private_chat
        private = replace(state.key, chat_id=user, user_id=user, thread_id=None)
        if private != state.key:
            await FSMContext(state.storage, private).clear()
