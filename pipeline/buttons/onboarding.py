"""Onboarding's buttons: the offer («Почати» / «Пізніше»), «Продовжити знайомство»
and the answers to its questions (pipeline/onboarding/flow.py has the steps)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.actions import OnboardingAction, OnboardingChoice
from pipeline.buttons.flow import keep
from pipeline.buttons.press import Press
from pipeline.buttons.uses import OnboardingLater
from pipeline.onboarding.flow import ORDER, OnboardingFlow, Turn
from pipeline.types import Reply

__all__ = ["OnboardingButton"]


@dataclass(frozen=True, slots=True)
class OnboardingButton:
    """The step is the presser's own: the channel keeps it per user and chat
    (``Press.flow``); the answer changes only the presser's profile."""

    flow: OnboardingFlow
    later: OnboardingLater = field(default_factory=OnboardingLater)

    async def __call__(self, action: OnboardingAction, press: Press) -> Reply | None:
        state = press.flow
        if state is None:  # a caller that keeps no steps: only «Пізніше» works
            return await self.later(action, press)
        lang = press.texts.lang
        if action.choice is OnboardingChoice.START:
            turn = self.flow.start(lang)
        elif action.choice is OnboardingChoice.RESUME:
            # Back to the step onboarding stopped at (the first one if that was forgotten).
            turn = self.flow.resume(await state.step() or ORDER[0], lang)
        elif await state.answering():
            step = await state.step()
            if step is None:
                await state.clear()
                return None
            turn = await self.flow.answer_button(press.incoming.user_id, step, action, lang)
        else:
            # Onboarding's buttons outside onboarding: «Пізніше» answers, others expire.
            return await self.later(action, press)
        await keep(state, turn)
        return _shown(turn)


def _shown(turn: Turn) -> Reply:
    """Each question is a new message under the conversation, as it always was."""
    return Reply(turn.text, turn.buttons)
