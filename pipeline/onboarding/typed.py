"""A message typed while onboarding asks a step: the step's answer, or (a question,
a work record, a request) answered by the pipeline as usual while onboarding waits
under one «Продовжити знайомство» button (issue 16 point 1)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from pipeline.buttons.flow import FlowState, keep
from pipeline.language.texts import Texts
from pipeline.onboarding.flow import OnboardingFlow
from pipeline.types import Incoming, Reply

__all__ = ["typed_answer"]

#: The pipeline's answer to a message (``Pipeline.handle_message``).
Ask = Callable[[Incoming], Awaitable[Reply]]


async def typed_answer(
    flow: OnboardingFlow, state: FlowState, incoming: Incoming, texts: Texts, ask: Ask
) -> Reply | None:
    """The reply to ``incoming``; None when no step is kept (onboarding is left)."""
    step = await state.step()
    if step is None:
        await state.clear()
        return None
    if flow.interrupts(incoming.text):
        await state.pause()
        reply = await ask(incoming)
        line, buttons = flow.paused_offer(texts.lang)
        text = f"{reply.text}\n\n{line}" if reply.text else line
        return replace(reply, text=text, buttons=(*reply.buttons, *buttons))
    turn = await flow.answer_text(
        incoming.user_id, step, incoming.text, texts.lang, await state.attempts()
    )
    await keep(state, turn)
    return Reply(turn.text, turn.buttons)
