"""Operators: /farm card with phase buttons, /farm [id] update key=value."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message
from sqlalchemy.ext.asyncio import AsyncSession

from bot.handlers._cards import answer_card, answer_edit, card_text
from bot.handlers._common import user_language
from bot.keyboards.admin import FarmCD, farm_keyboard
from bot.render import edit_text
from pipeline.admin import Edit, parse_farm_edit
from pipeline.cards import farm_card
from pipeline.handle import Pipeline
from pipeline.i18n import Catalog
from pipeline.memory.manager import Loaded
from pipeline.types import Language

router = Router(name=__name__)


def _render(loaded: Loaded, catalog: Catalog, lang: Language) -> str:
    return farm_card(loaded.farm, catalog, lang)


@router.message(Command("farm"), F.text.regexp(r"^/farm(@\w+)?\s+(-?\d+\s+)?update\b"))
async def on_farm_update(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    async def apply(user: int, edit: Edit) -> bool:
        if not (await pipeline.memory.load(session, f"tg:{user}")).known:
            return False
        await pipeline.memory.update_farm(session, f"tg:{user}", **{edit.key: edit.value})
        return True

    await answer_edit(message, command, pipeline, parse=parse_farm_edit, apply=apply)


@router.message(Command("farm"))
async def on_farm(
    message: Message, command: CommandObject, pipeline: Pipeline, session: AsyncSession
) -> None:
    await answer_card(
        message,
        command,
        pipeline,
        session,
        render=_render,
        keyboard=farm_keyboard,
        usage_key="admin.usage_update",
    )


@router.callback_query(FarmCD.filter())
async def on_phase_button(
    query: CallbackQuery, callback_data: FarmCD, bot: Bot, pipeline: Pipeline, session: AsyncSession
) -> None:
    lang, catalog = user_language(query.from_user), pipeline.catalog
    user_id = f"tg:{callback_data.user}"
    known = (await pipeline.memory.load(session, user_id)).known
    if known:
        await pipeline.memory.update_farm(session, user_id, current_phase=callback_data.phase)
    await query.answer(catalog.text(lang, "admin.saved" if known else "admin.no_user"))
    card = await card_text(pipeline, session, callback_data.user, lang, _render)
    if card is not None and query.message is not None:
        keyboard = farm_keyboard(callback_data.user, catalog, lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)
