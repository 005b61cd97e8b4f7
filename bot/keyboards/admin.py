"""Operators' inline buttons: typed callback data, never hand-split strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.keyboards.ids import RowId, TelegramId
from pipeline.admin.edits import AUTO, PHASES
from pipeline.language.catalog import Catalog
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Phase
from pipeline.types import Language


class ProfileCD(CallbackData, prefix="pf"):
    user: TelegramId  # of the profile's owner
    field: Literal["expertise_level", "preferred_style"]
    value: str  # checked against the field's allowed values when applied


class FarmCD(CallbackData, prefix="fm"):
    user: TelegramId
    #: "auto": the journal infers the phase again (the operator's lock goes).
    phase: Phase | Literal["auto"]


class FarmIotCD(CallbackData, prefix="fi"):
    """The operator's switch of the farm's IoT integration on the /farm card."""

    user: TelegramId
    on: bool


def profile_keyboard(user: int, catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for level in EXPERTISE_LEVELS:
        builder.button(
            text=catalog.text(lang, f"expertise.{level}"),
            callback_data=ProfileCD(user=user, field="expertise_level", value=level),
        )
    for style in STYLES:
        builder.button(
            text=catalog.text(lang, f"styles.{style}"),
            callback_data=ProfileCD(user=user, field="preferred_style", value=style),
        )
    builder.button(
        text=catalog.text(lang, "admin.level_auto"),
        callback_data=ProfileCD(user=user, field="expertise_level", value=AUTO),
    )
    builder.adjust(3, 3, 1)
    return builder.as_markup()


def farm_keyboard(user: int, catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for phase in PHASES:
        builder.button(
            text=catalog.text(lang, f"phase.{phase}"), callback_data=FarmCD(user=user, phase=phase)
        )
    builder.button(
        text=catalog.text(lang, "admin.phase_auto"), callback_data=FarmCD(user=user, phase=AUTO)
    )
    for on, key in ((True, "admin.iot_on"), (False, "admin.iot_off")):
        builder.button(text=catalog.text(lang, key), callback_data=FarmIotCD(user=user, on=on))
    builder.adjust(3, 3, 1, 2)
    return builder.as_markup()


class TermCD(CallbackData, prefix="dt"):
    term: RowId
    approve: bool


class FarmCardCD(CallbackData, prefix="fc"):
    """«🌾 Зоря»: show the farm card of this farmer (from /pending)."""

    user: TelegramId


def terms_keyboard(
    term_ids: list[int], farms: Sequence[tuple[int, str]], catalog: Catalog, lang: Language
) -> InlineKeyboardMarkup:
    """✅ / ❌ per term, then one button per farm (its owner's id, its name) to its card."""
    builder = InlineKeyboardBuilder()
    for term_id in term_ids:
        builder.button(text=f"✅ #{term_id}", callback_data=TermCD(term=term_id, approve=True))
        builder.button(text=f"❌ #{term_id}", callback_data=TermCD(term=term_id, approve=False))
    for user, name in farms:
        builder.button(
            text=catalog.text(lang, "terms.farm_button", farm=name),
            callback_data=FarmCardCD(user=user),
        )
    builder.adjust(*([2] * len(term_ids)), 1)
    return builder.as_markup()
