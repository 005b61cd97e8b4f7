"""Operators: /farm card with phase and sensor buttons, /farm [id] update key=value.

A phase set by hand locks it (the journal no longer infers it) until "auto"; the
sensor switch sets has_iot_integration and the sensor integration together."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.delivery.render import edit_text
from bot.handlers._cards import CardText, answer_card, answer_edit, card_text
from bot.handlers._common import load_profile
from bot.keyboards.admin import FarmCardCD, FarmCD, FarmIotCD, farm_keyboard
from bot.user_ids import stepan_user_id
from pipeline.admin.cards import farm_card
from pipeline.admin.edits import AUTO, SENSOR_SWITCH, AdminError, Edit, parse_farm_edit
from pipeline.agronomy.region import FarmRegions
from pipeline.farm.naming import NameBook
from pipeline.language.texts import Texts
from pipeline.memory import (
    Loaded,
    ProfileEditor,
    ProfileLearner,
    ProfileLoader,
    StoreUnavailable,
)

router = Router(name=__name__)


def _switch(on: bool) -> str:
    return next(word for word, value in SENSOR_SWITCH.items() if value is on)


def _renderer(names: NameBook) -> CardText:
    async def render(loaded: Loaded, texts: Texts) -> str:
        return farm_card(
            loaded.farm, await names.of(loaded.farm, texts.lang), texts.catalog, texts.lang
        )

    return render


@router.message(Command("farm"), F.text.regexp(r"^/farm(@\w+)?\s+(-?\d+\s+)?update\b"))
async def on_farm_update(
    message: Message,
    command: CommandObject,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    profile_learner: ProfileLearner,
    texts: Texts,
    regions: FarmRegions,
) -> None:
    learner = profile_learner

    async def apply(user: int, edit: Edit) -> bool:
        user_id = stepan_user_id(user)
        if not (await load_profile(profiles, user_id)).known:
            return False
        if edit.key in ("current_phase", "sensors"):
            return await _set(profile_editor, learner, user_id, edit.key, str(edit.value))
        if edit.key == "region":
            region = regions.read(str(edit.value))
            if region is None:
                raise AdminError("admin.bad_region", value=str(edit.value))
            return await regions.set(user_id, region)
        await profile_editor.update_farm(user_id, **{edit.key: edit.value})
        return True

    await answer_edit(message, command, texts, parse=parse_farm_edit, apply=apply)


@router.message(Command("farm"))
async def on_farm(
    message: Message,
    command: CommandObject,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
) -> None:
    await answer_card(
        message,
        command,
        profiles,
        texts,
        render=_renderer(names),
        keyboard=farm_keyboard,
        usage_key="admin.usage_farm",
    )


async def _set(
    editor: ProfileEditor, learner: ProfileLearner, user_id: str, key: str, value: str
) -> bool:
    """A phase (locks it), "auto" (unlocks and infers it from the journal now), or the
    sensor switch ("on"/"off")."""
    if key == "sensors":
        await learner.set_iot(user_id, SENSOR_SWITCH[value])
        return True
    phase = None if value == AUTO else value
    if await editor.update_farm(user_id, current_phase=phase) is None:
        raise StoreUnavailable(user_id)  # never "saved" when it was not
    if phase is None:
        await learner.refresh(user_id)
    return True


@router.callback_query(FarmCD.filter())
@router.callback_query(FarmIotCD.filter())
async def on_farm_button(
    query: CallbackQuery,
    callback_data: FarmCD | FarmIotCD,
    bot: Bot,
    profiles: ProfileLoader,
    profile_editor: ProfileEditor,
    profile_learner: ProfileLearner,
    names: NameBook,
    texts: Texts,
) -> None:
    user_id = stepan_user_id(callback_data.user)
    known = (await load_profile(profiles, user_id)).known
    if known and isinstance(callback_data, FarmIotCD):
        await _set(profile_editor, profile_learner, user_id, "sensors", _switch(callback_data.on))
    elif known and isinstance(callback_data, FarmCD):
        await _set(profile_editor, profile_learner, user_id, "current_phase", callback_data.phase)
    await query.answer(texts.text("admin.saved" if known else "admin.no_user"))
    card = await card_text(profiles, texts, callback_data.user, _renderer(names))
    if card is not None and query.message is not None:
        keyboard = farm_keyboard(callback_data.user, texts.catalog, texts.lang)
        await edit_text(bot, query.message.chat.id, query.message.message_id, card, keyboard)


@router.callback_query(FarmCardCD.filter())
async def on_farm_card_button(
    query: CallbackQuery,
    callback_data: FarmCardCD,
    profiles: ProfileLoader,
    names: NameBook,
    texts: Texts,
) -> None:
    """«🌾 Зоря» under /pending: that farmer's farm card, as /farm <id> shows it."""
    await query.answer()
    card = await card_text(profiles, texts, callback_data.user, _renderer(names))
    if query.message is None:
        return
    if card is None:
        await query.message.answer(texts.text("admin.no_user"))
        return
    keyboard = farm_keyboard(callback_data.user, texts.catalog, texts.lang)
    await query.message.answer(card, reply_markup=keyboard)
