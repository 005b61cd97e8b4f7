"""Operators: /profile card with buttons, /profile [id] set key=value."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.delivery.render import edit_text
from bot.handlers._cards import answer_card, answer_edit, card_text
from bot.keyboards.admin import ProfileCD, profile_keyboard
from bot.user_ids import stepan_user_id
from pipeline.admin.cards import profile_card
from pipeline.admin.edits import AUTO, PROFILE_KEYS, Edit, parse_profile_edit
from pipeline.language.texts import Texts
from pipeline.memory import Loaded, ProfileEditor, ProfileLoader

router = Router(name=__name__)


async def _apply(editor: ProfileEditor, user: int, key: str, value: str) -> bool:
    user_id = stepan_user_id(user)
    if key == "expertise_level" and value == AUTO:
        # The operator's lock goes: the expertise rule moves the level again.
        return await editor.unlock_expertise(user_id)
    if key == "expertise_level" and value in PROFILE_KEYS[key]:
        return await editor.set_expertise(user_id, value, by_operator=True)  # type: ignore[arg-type]
    if key == "preferred_style" and value in PROFILE_KEYS[key]:
        return await editor.set_style(user_id, value)  # type: ignore[arg-type]
    return False


async def _render(loaded: Loaded, texts: Texts) -> str:
    return profile_card(loaded.profile, texts.catalog, texts.lang, loaded.farm.timezone)


@router.message(Command("profile"), F.text.regexp(r"^/profile(@\w+)?\s+(-?\d+\s+)?set\b"))
async def on_profile_set(
    message: Message, command: CommandObject, profile_editor: ProfileEditor, texts: Texts
) -> None:
    async def apply(user: int, edit: Edit) -> bool:
        return await _apply(profile_editor, user, edit.key, str(edit.value))

    await answer_edit(message, command, texts, parse=parse_profile_edit, apply=apply)


@router.message(Command("profile"))
async def on_profile(
    message: Message, command: CommandObject, profiles: ProfileLoader, texts: Texts
) -> None:
    await answer_card(
        message,
        command,
        profiles,
        texts,
        render=_render,
        keyboard=profile_keyboard,
        usage_key="admin.usage_profile",
    )


@router.callback_query(ProfileCD.filter())
async def on_profile_button(
    query: CallbackQuery,
    callback_data: ProfileCD,
    bot: Bot,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    texts: Texts,
) -> None:
    ok = await _apply(profile_editor, callback_data.user, callback_data.field, callback_data.value)
    await query.answer(texts.text("admin.saved" if ok else "admin.no_user"))
    card = await card_text(profiles, texts, callback_data.user, _render)
    if ok and card is not None and query.message is not None:
        keyboard = profile_keyboard(callback_data.user, texts.catalog, texts.lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)
