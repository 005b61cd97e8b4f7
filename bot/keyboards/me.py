"""A user's own buttons: their reply style and forgetting their data."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from pipeline.i18n import Catalog
from pipeline.profiles import STYLES
from pipeline.types import Language


class MeCD(CallbackData, prefix="me"):
    action: str  # "style" | "forget" | "keep"
    value: str = ""


def me_keyboard(catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for style in STYLES:
        builder.button(
            text=catalog.text(lang, f"actions.button.style_{style}"),
            callback_data=MeCD(action="style", value=style),
        )
    return builder.as_markup()


def forget_keyboard(catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=catalog.text(lang, "me.forget_yes"), callback_data=MeCD(action="forget"))
    builder.button(text=catalog.text(lang, "me.forget_no"), callback_data=MeCD(action="keep"))
    return builder.as_markup()
