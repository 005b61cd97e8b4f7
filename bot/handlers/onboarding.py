"""Onboarding a new user (aiogram FSM). The steps themselves live in pipeline.onboarding.flow.

Onboarding's buttons (the offer, «Продовжити знайомство», the answers to its
questions) go through the one button path (bot/handlers/actions.py ->
pipeline/buttons/onboarding.py), its step kept by ``FsmFlow`` (bot/handlers/_flow.py).
Here: the typed answer to a step, and /cancel.

Onboarding never traps (issue 16 point 1): a question or a request typed during it is
answered by the pipeline as usual and onboarding waits (``Onboarding.paused``) under
one «Продовжити знайомство» button (pipeline/onboarding/typed.py); commands work as
always (bot/middlewares/onboarding_pause.py); /cancel leaves it.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.types import Message, Update

from bot.config import Settings
from bot.filters import InState, PlainText
from bot.handlers._common import deliver, text_incoming
from bot.handlers._flow import FsmFlow, Onboarding
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor
from pipeline.onboarding.flow import OnboardingFlow
from pipeline.onboarding.typed import typed_answer

__all__ = ["Onboarding", "commands", "router"]

router = Router(name=__name__)
#: /cancel, in the command branch (bot/handlers/__init__.py): it answers with or
#: without a state, where ``router``'s messages are only looked at in some state.
commands = Router(name=f"{__name__}.commands")


@commands.message(Command("cancel"))
async def on_cancel(message: Message, texts: Texts, state: FSMContext) -> None:
    waiting = await state.get_state() in (Onboarding.active.state, Onboarding.paused.state)
    if waiting:
        await state.clear()
    await message.answer(
        texts.text("onboarding.cancelled" if waiting else "onboarding.nothing_to_cancel")
    )


@router.message(InState(Onboarding.active), PlainText())
async def on_text(
    message: Message,
    bot: Bot,
    onboarding: OnboardingFlow,
    state: FSMContext,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    incoming = text_incoming(message, trace_id, settings, event_update)
    if incoming is None:
        await state.clear()
        return
    reply = await typed_answer(onboarding, FsmFlow(state), incoming, texts, pipeline.handle_message)
    if reply is not None:
        await deliver(bot, profile_editor, incoming, reply, texts)
