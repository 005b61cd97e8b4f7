"""A user's own memory: /me shows it (its style buttons are StyleCD, answered in
actions), /forget deletes it after a confirm button."""

from __future__ import annotations

import logging
from dataclasses import replace

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message

from bot.delivery.render import edit_text
from bot.handlers._common import telegram_user_id
from bot.handlers._me_card import me_card
from bot.keyboards.me import ForgetCD, forget_keyboard
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor, ProfileLoader
from pipeline.recall import Conversations

logger = logging.getLogger(__name__)

router = Router(name=__name__)


async def _clear_states(state: FSMContext, user_id: int) -> None:
    """Onboarding's step (in Redis with several instances, without expiry) would
    otherwise take the next message as an answer and create the profile again. The
    private chat's state is cleared even when the button was pressed elsewhere."""
    await state.clear()
    private = replace(state.key, chat_id=user_id, user_id=user_id, thread_id=None)
    if private != state.key:
        await FSMContext(state.storage, private).clear()


@router.message(Command("me"))
async def on_me(
    message: Message,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None = None,
) -> None:
    if message.from_user is None:
        return
    text, keyboard = await me_card(
        telegram_user_id(message.from_user),
        texts,
        profiles=profiles,
        names=names,
        conversations=conversations,
    )
    await message.answer(text, reply_markup=keyboard)


@router.message(Command("forget"))
async def on_forget(message: Message, texts: Texts) -> None:
    await message.answer(
        texts.text("me.forget_confirm"), reply_markup=forget_keyboard(texts.catalog, texts.lang)
    )


@router.callback_query(ForgetCD.filter())
async def on_forget_answer(
    query: CallbackQuery,
    callback_data: ForgetCD,
    bot: Bot,
    profile_editor: ProfileEditor,
    texts: Texts,
    state: FSMContext,
) -> None:
    await query.answer()
    if callback_data.confirm:
        # Only the presser's own data: the callback carries no user id to forge.
        try:
            # Their private chat: replies still kept for it (flood control) go too.
            await profile_editor.forget(
                telegram_user_id(query.from_user), chat_id=query.from_user.id
            )
            await _clear_states(state, query.from_user.id)
            text = texts.text("me.forgotten")
        except Exception:
            # Nobody is told their data is gone when it is not.
            logger.exception("forget failed user=%s", query.from_user.id)
            text = texts.text("me.forget_failed")
    else:
        text = texts.text("me.kept")
    if query.message is not None:
        await edit_text(bot, query.message.chat.id, query.message.message_id, text, None)
