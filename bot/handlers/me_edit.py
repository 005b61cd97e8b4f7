"""The /me card's correction buttons: the name (the next message is it), the reply
language, the level the user asks for, 🗑 under a conversation summary. Only the
presser's own profile changes: the callbacks carry no user id. The style buttons are
StyleCD (bot/handlers/actions.py)."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import StateFilter
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, Message

from bot.delivery.render import edit_text
from bot.handlers._common import load_profile, telegram_user_id
from bot.handlers._me_card import me_card
from bot.keyboards.me import MeForgetTalkCD, MeLanguageCD, MeLevelCD, MeNameCD
from pipeline.admin.cards import valid_name
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor, ProfileLoader
from pipeline.recall import Conversations
from pipeline.types import Language

router = Router(name=__name__)


class MeEdit(StatesGroup):
    name = State()


async def _refresh_card(
    query: CallbackQuery,
    bot: Bot,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None,
) -> None:
    """The /me card shows the change at once, with its buttons."""
    if not isinstance(query.message, Message):
        return
    text, keyboard = await me_card(
        telegram_user_id(query.from_user),
        texts,
        profiles=profiles,
        names=names,
        conversations=conversations,
    )
    await edit_text(bot, query.message.chat.id, query.message.message_id, text, keyboard)


@router.callback_query(MeNameCD.filter())
async def on_name_button(query: CallbackQuery, texts: Texts, state: FSMContext) -> None:
    await query.answer()
    await state.set_state(MeEdit.name)
    if isinstance(query.message, Message):
        await query.message.answer(texts.text("me.ask_name"))


@router.message(StateFilter(MeEdit.name), F.text, ~F.text.startswith("/"))
async def on_name(
    message: Message, profile_editor: ProfileEditor, texts: Texts, state: FSMContext
) -> None:
    if message.from_user is None or message.text is None:
        return
    name = valid_name(message.text)
    if name is None:
        await message.answer(texts.text("me.name_bad"))  # the state stays
        return
    await state.clear()
    saved = await profile_editor.update_user(telegram_user_id(message.from_user), name=name)
    key = "me.name_set" if saved is not None else "me.failed"
    await message.answer(texts.text(key, name=name))


@router.callback_query(MeLanguageCD.filter())
async def on_language(
    query: CallbackQuery,
    callback_data: MeLanguageCD,
    bot: Bot,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None = None,
) -> None:
    chosen: Language = callback_data.language
    user_id = telegram_user_id(query.from_user)
    saved = await profile_editor.update_user(user_id, preferred_language=chosen)
    if saved is None:
        await query.answer(texts.text("me.failed"))
        return
    # Said in the language just chosen: that is the language from now on.
    await query.answer(texts.speaking(chosen).text("me.language_set"))
    await _refresh_card(query, bot, profiles, names, texts, conversations)


@router.callback_query(MeLevelCD.filter())
async def on_level(
    query: CallbackQuery,
    callback_data: MeLevelCD,
    bot: Bot,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None = None,
) -> None:
    user_id = telegram_user_id(query.from_user)
    if not await profile_editor.set_expertise(user_id, callback_data.level, by_operator=False):
        # An operator's lock stands (or the user is unknown): nothing changed.
        loaded = await load_profile(profiles, user_id)
        locked = loaded.known and loaded.profile.expertise_locked
        await query.answer(texts.text("me.level_locked" if locked else "me.failed"))
        return
    level = texts.text(f"expertise.{callback_data.level}")
    await query.answer(texts.text("me.level_set", level=level))
    await _refresh_card(query, bot, profiles, names, texts, conversations)


@router.callback_query(MeForgetTalkCD.filter())
async def on_forget_talk(
    query: CallbackQuery,
    callback_data: MeForgetTalkCD,
    bot: Bot,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
    conversations: Conversations | None = None,
) -> None:
    """🗑 under a summary: gone here and in the memory-service. The presser's own
    only: ``Conversations.delete`` refuses another user's summary."""
    user_id = telegram_user_id(query.from_user)
    deleted = conversations is not None and await conversations.delete(
        user_id, callback_data.summary
    )
    await query.answer(texts.text("me.talk_forgotten" if deleted else "actions.expired"))
    if deleted:
        await _refresh_card(query, bot, profiles, names, texts, conversations)
