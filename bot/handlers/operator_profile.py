"""Operators: /profile card with buttons, /profile [id] set key=value."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message, MessageOriginUser
from sqlalchemy.ext.asyncio import AsyncSession

from bot.filters import IsOperator
from bot.handlers._common import user_language
from bot.keyboards.admin import ProfileCD, profile_keyboard
from bot.render import edit_text
from pipeline.admin import PROFILE_KEYS, AdminError, parse_profile_edit, parse_target
from pipeline.cards import profile_card
from pipeline.handle import Pipeline
from pipeline.types import Language

router = Router(name=__name__)
router.message.filter(IsOperator())
router.callback_query.filter(IsOperator())


def target_of(message: Message, explicit: int | None) -> int | None:
    """An explicit id, else the author of the forwarded message replied to, else self."""
    if explicit is not None:
        return explicit
    replied = message.reply_to_message
    if replied is not None and isinstance(replied.forward_origin, MessageOriginUser):
        return replied.forward_origin.sender_user.id
    return message.from_user.id if message.from_user else None


async def _apply(
    pipeline: Pipeline, session: AsyncSession, user: int, key: str, value: str
) -> bool:
    memory = pipeline.memory
    if key == "expertise_level" and value in PROFILE_KEYS[key]:
        return await memory.set_expertise(session, f"tg:{user}", value, by_operator=True)  # type: ignore[arg-type]
    if key == "preferred_style" and value in PROFILE_KEYS[key]:
        return await memory.set_style(session, f"tg:{user}", value)  # type: ignore[arg-type]
    return False


async def _card(pipeline: Pipeline, session: AsyncSession, user: int, lang: Language) -> str | None:
    loaded = await pipeline.memory.load(session, f"tg:{user}")
    return profile_card(loaded.profile, pipeline.catalog, lang) if loaded.known else None


@router.message(Command("profile"), F.text.regexp(r"^/profile(@\w+)?\s+(-?\d+\s+)?set\b"))
async def on_profile_set(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(message.from_user), pipeline.catalog
    try:
        edit = parse_profile_edit(command.args or "")
    except AdminError as error:
        await message.answer(catalog.text(lang, error.key, **error.params))
        return
    user = target_of(message, edit.target)
    if user is None or not await _apply(pipeline, session, user, edit.key, str(edit.value)):
        await message.answer(catalog.text(lang, "admin.no_user"))
        return
    await message.answer(catalog.text(lang, "admin.saved"))


@router.message(Command("profile"))
async def on_profile(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(message.from_user), pipeline.catalog
    args = (command.args or "").split()
    explicit = parse_target(args[0]) if args else None
    if args and explicit is None:
        await message.answer(catalog.text(lang, "admin.usage_set"))
        return
    user = target_of(message, explicit)
    card = await _card(pipeline, session, user, lang) if user is not None else None
    if user is None or card is None:
        await message.answer(catalog.text(lang, "admin.no_user"))
        return
    await message.answer(card, reply_markup=profile_keyboard(user, catalog, lang))


@router.callback_query(ProfileCD.filter())
async def on_profile_button(
    query: CallbackQuery,
    callback_data: ProfileCD,
    bot: Bot,
    pipeline: Pipeline,
    session: AsyncSession,
) -> None:
    lang, catalog = user_language(query.from_user), pipeline.catalog
    ok = await _apply(
        pipeline, session, callback_data.user, callback_data.field, callback_data.value
    )
    await query.answer(catalog.text(lang, "admin.saved" if ok else "admin.no_user"))
    card = await _card(pipeline, session, callback_data.user, lang)
    if ok and card is not None and query.message is not None:
        keyboard = profile_keyboard(callback_data.user, catalog, lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)
