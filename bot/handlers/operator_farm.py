"""Operators: /farm card with phase buttons, /farm [id] update key=value."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message
from sqlalchemy.ext.asyncio import AsyncSession

from bot.filters import IsOperator
from bot.handlers._common import user_language
from bot.handlers.operator_profile import target_of
from bot.keyboards.admin import FarmCD, farm_keyboard
from bot.render import edit_text
from pipeline.admin import PHASES, AdminError, parse_farm_edit, parse_target
from pipeline.cards import farm_card
from pipeline.handle import Pipeline
from pipeline.types import Language

router = Router(name=__name__)
router.message.filter(IsOperator())
router.callback_query.filter(IsOperator())


async def _card(pipeline: Pipeline, session: AsyncSession, user: int, lang: Language) -> str | None:
    loaded = await pipeline.memory.load(session, f"tg:{user}")
    return farm_card(loaded.farm, pipeline.catalog, lang) if loaded.known else None


@router.message(Command("farm"), F.text.regexp(r"^/farm(@\w+)?\s+(-?\d+\s+)?update\b"))
async def on_farm_update(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(message.from_user), pipeline.catalog
    try:
        edit = parse_farm_edit(command.args or "")
    except AdminError as error:
        await message.answer(catalog.text(lang, error.key, **error.params))
        return
    user = target_of(message, edit.target)
    if user is None or not (await pipeline.memory.load(session, f"tg:{user}")).known:
        await message.answer(catalog.text(lang, "admin.no_user"))
        return
    try:
        await pipeline.memory.update_farm(session, f"tg:{user}", **{edit.key: edit.value})
    except ValueError as error:
        await message.answer(catalog.text(lang, "admin.invalid", reason=str(error)))
        return
    await message.answer(catalog.text(lang, "admin.saved"))


@router.message(Command("farm"))
async def on_farm(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(message.from_user), pipeline.catalog
    args = (command.args or "").split()
    explicit = parse_target(args[0]) if args else None
    if args and explicit is None:
        await message.answer(catalog.text(lang, "admin.usage_update"))
        return
    user = target_of(message, explicit)
    card = await _card(pipeline, session, user, lang) if user is not None else None
    if user is None or card is None:
        await message.answer(catalog.text(lang, "admin.no_user"))
        return
    await message.answer(card, reply_markup=farm_keyboard(user, catalog, lang))


@router.callback_query(FarmCD.filter(F.phase.in_(PHASES)))
async def on_phase_button(
    query: CallbackQuery, callback_data: FarmCD, bot: Bot, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(query.from_user), pipeline.catalog
    user_id = f"tg:{callback_data.user}"
    known = (await pipeline.memory.load(session, user_id)).known
    if known:
        await pipeline.memory.update_farm(session, user_id, current_phase=callback_data.phase)
    await query.answer(catalog.text(lang, "admin.saved" if known else "admin.no_user"))
    card = await _card(pipeline, session, callback_data.user, lang)
    if card is not None and query.message is not None:
        keyboard = farm_keyboard(callback_data.user, catalog, lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)
