"""Operators: /farm card with phase buttons, /farm [id] update key=value."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.handlers._cards import CardText, answer_card, answer_edit, card_text
from bot.handlers._common import load_profile, user_language
from bot.keyboards.admin import FarmCD, farm_keyboard
from bot.render import edit_text
from pipeline.admin import Edit, parse_farm_edit
from pipeline.agronomy.region import FarmRegions
from pipeline.cards import farm_card
from pipeline.i18n import Catalog
from pipeline.memory import Loaded, ProfileEditor, ProfileLoader, StoreUnavailable
from pipeline.naming import NameBook
from pipeline.types import Language

router = Router(name=__name__)


def _renderer(names: NameBook) -> CardText:
    async def render(loaded: Loaded, catalog: Catalog, lang: Language) -> str:
        return farm_card(loaded.farm, await names.of(loaded.farm, lang), catalog, lang)

    return render


@router.message(Command("farm"), F.text.regexp(r"^/farm(@\w+)?\s+(-?\d+\s+)?update\b"))
async def on_farm_update(
    message: Message,
    command: CommandObject,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    catalog: Catalog,
    regions: FarmRegions,
) -> None:
    async def apply(user: int, edit: Edit) -> bool:
        if not (await load_profile(profiles, f"tg:{user}")).known:
            return False
        if edit.key == "region":
            region = regions.read(str(edit.value))
            if region is None:
                raise ValueError(f"no oblast in {edit.value!r}")
            return await regions.set(f"tg:{user}", region)
        await profile_editor.update_farm(f"tg:{user}", **{edit.key: edit.value})
        return True

    await answer_edit(message, command, catalog, parse=parse_farm_edit, apply=apply)


@router.message(Command("farm"))
async def on_farm(
    message: Message,
    command: CommandObject,
    profiles: ProfileLoader,
    names: NameBook,
    catalog: Catalog,
) -> None:
    await answer_card(
        message,
        command,
        profiles,
        catalog,
        render=_renderer(names),
        keyboard=farm_keyboard,
        usage_key="admin.usage_update",
    )


@router.callback_query(FarmCD.filter())
async def on_phase_button(
    query: CallbackQuery,
    callback_data: FarmCD,
    bot: Bot,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    names: NameBook,
    catalog: Catalog,
) -> None:
    lang = user_language(query.from_user)
    user_id = f"tg:{callback_data.user}"
    known = (await load_profile(profiles, user_id)).known
    if (
        known
        and await profile_editor.update_farm(user_id, current_phase=callback_data.phase) is None
    ):
        raise StoreUnavailable(user_id)  # never "saved" when it was not
    await query.answer(catalog.text(lang, "admin.saved" if known else "admin.no_user"))
    card = await card_text(profiles, catalog, callback_data.user, lang, _renderer(names))
    if card is not None and query.message is not None:
        keyboard = farm_keyboard(callback_data.user, catalog, lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)
