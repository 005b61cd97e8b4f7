"""Onboarding a new user (aiogram FSM). The steps themselves live in pipeline.onboarding."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, Message

from bot.filters import InState, PlainText
from bot.handlers._common import telegram_user_id, user_language
from bot.keyboards.pipeline import OnboardingCD
from bot.render import send_reply
from pipeline.actions import OnboardingChoice
from pipeline.onboarding import OnboardingFlow, Step, Turn
from pipeline.types import Reply

router = Router(name=__name__)


class Onboarding(StatesGroup):
    active = State()


async def _show(turn: Turn, chat_id: int, bot: Bot, state: FSMContext) -> None:
    if turn.step is None:
        await state.clear()
    else:
        await state.update_data(step=turn.step.value)
    await send_reply(bot, chat_id, Reply(turn.text, turn.buttons))


async def _step(state: FSMContext) -> Step | None:
    value = (await state.get_data()).get("step")
    return Step(value) if isinstance(value, str) and value in set(Step) else None


@router.callback_query(OnboardingCD.filter(F.choice == OnboardingChoice.START))
async def on_start(
    query: CallbackQuery, bot: Bot, onboarding: OnboardingFlow, state: FSMContext
) -> None:
    await query.answer()
    await state.set_state(Onboarding.active)
    chat_id = query.message.chat.id if query.message else query.from_user.id
    await _show(onboarding.start(user_language(query.from_user)), chat_id, bot, state)


@router.callback_query(InState(Onboarding.active), OnboardingCD.filter())
async def on_button(
    query: CallbackQuery,
    callback_data: OnboardingCD,
    bot: Bot,
    onboarding: OnboardingFlow,
    state: FSMContext,
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
        user_language(query.from_user),
    )
    chat_id = query.message.chat.id if query.message else query.from_user.id
    await _show(turn, chat_id, bot, state)


@router.message(InState(Onboarding.active), PlainText())
async def on_text(
    message: Message, bot: Bot, onboarding: OnboardingFlow, state: FSMContext
) -> None:
    step = await _step(state)
    if step is None or message.from_user is None or message.text is None:
        await state.clear()
        return
    turn = await onboarding.answer_text(
        telegram_user_id(message.from_user),
        step,
        message.text,
        user_language(message.from_user),
    )
    await _show(turn, message.chat.id, bot, state)
