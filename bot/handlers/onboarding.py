"""Onboarding a new user (aiogram FSM). The steps themselves live in pipeline.onboarding.flow.

Onboarding never traps (issue 16 point 1): a question or a request typed during it is
answered by the pipeline as usual and onboarding waits (``Onboarding.paused``) under
one «Продовжити знайомство» button; commands work as always
(bot/middlewares/onboarding_pause.py); /cancel leaves it.
"""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, F, Router
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, Message, Update

from bot.config import Settings
from bot.delivery.render import send_reply
from bot.filters import InState, PlainText
from bot.handlers._common import deliver, telegram_user_id, text_incoming
from bot.keyboards.pipeline import OnboardingCD
from pipeline.actions import OnboardingChoice
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor
from pipeline.onboarding.flow import ORDER, OnboardingFlow, Step, Turn
from pipeline.types import Reply

router = Router(name=__name__)
#: /cancel, in the command branch (bot/handlers/__init__.py): it answers with or
#: without a state, where ``router``'s messages are only looked at in some state.
commands = Router(name=f"{__name__}.commands")


class Onboarding(StatesGroup):
    active = State()
    #: A message that was not an answer was handled; the step waits for «Продовжити».
    paused = State()


async def _show(turn: Turn, chat_id: int, bot: Bot, state: FSMContext) -> None:
    if turn.step is None:
        await state.clear()
    else:
        await state.update_data(step=turn.step.value, attempts=turn.attempts)
    await send_reply(bot, chat_id, Reply(turn.text, turn.buttons))


async def _step(state: FSMContext) -> Step | None:
    value = (await state.get_data()).get("step")
    return Step(value) if isinstance(value, str) and value in set(Step) else None


async def _attempts(state: FSMContext) -> int:
    value = (await state.get_data()).get("attempts")
    return value if isinstance(value, int) else 0


@router.callback_query(OnboardingCD.filter(F.choice == OnboardingChoice.START))
async def on_start(
    query: CallbackQuery, bot: Bot, onboarding: OnboardingFlow, state: FSMContext, texts: Texts
) -> None:
    await query.answer()
    await state.set_state(Onboarding.active)
    chat_id = query.message.chat.id if query.message else query.from_user.id
    await _show(onboarding.start(texts.lang), chat_id, bot, state)


@router.callback_query(OnboardingCD.filter(F.choice == OnboardingChoice.RESUME))
async def on_resume(
    query: CallbackQuery, bot: Bot, onboarding: OnboardingFlow, state: FSMContext, texts: Texts
) -> None:
    """Back to the step onboarding stopped at (the first one if that was forgotten)."""
    await query.answer()
    step = await _step(state) or ORDER[0]
    await state.set_state(Onboarding.active)
    chat_id = query.message.chat.id if query.message else query.from_user.id
    await _show(onboarding.resume(step, texts.lang), chat_id, bot, state)


@commands.message(Command("cancel"))
async def on_cancel(message: Message, texts: Texts, state: FSMContext) -> None:
    waiting = await state.get_state() in (Onboarding.active.state, Onboarding.paused.state)
    if waiting:
        await state.clear()
    await message.answer(
        texts.text("onboarding.cancelled" if waiting else "onboarding.nothing_to_cancel")
    )


@router.callback_query(InState(Onboarding.active), OnboardingCD.filter())
async def on_button(
    query: CallbackQuery,
    callback_data: OnboardingCD,
    bot: Bot,
    onboarding: OnboardingFlow,
    state: FSMContext,
    texts: Texts,
) -> None:
    await query.answer()
    step = await _step(state)
    if step is None:
        await state.clear()
        return
    turn = await onboarding.answer_button(
        telegram_user_id(query.from_user),
        step,
        callback_data.to_action(),
        texts.lang,
    )
    chat_id = query.message.chat.id if query.message else query.from_user.id
    await _show(turn, chat_id, bot, state)


@router.message(InState(Onboarding.active), PlainText())
async def on_text(
    message: Message,
    bot: Bot,
    onboarding: OnboardingFlow,
    state: FSMContext,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    catalog: Catalog,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    step = await _step(state)
    if step is None or message.from_user is None or message.text is None:
        await state.clear()
        return
    lang = texts.lang
    incoming = text_incoming(message, trace_id, settings, event_update)
    if incoming is not None and onboarding.interrupts(message.text):
        await state.set_state(Onboarding.paused)
        reply = await pipeline.handle_message(incoming)
        line, buttons = onboarding.paused_offer(lang)
        text = f"{reply.text}\n\n{line}" if reply.text else line
        await deliver(
            bot,
            profile_editor,
            incoming,
            replace(reply, text=text, buttons=(*reply.buttons, *buttons)),
            texts,
        )
        return
    turn = await onboarding.answer_text(
        telegram_user_id(message.from_user), step, message.text, lang, await _attempts(state)
    )
    await _show(turn, message.chat.id, bot, state)
