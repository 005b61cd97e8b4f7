"""A user's own buttons: their reply style and forgetting their data."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.keyboards.pipeline import StyleCD
from pipeline.i18n import Catalog
from pipeline.profiles import STYLES
from pipeline.types import Language


class ForgetCD(CallbackData, prefix="fg"):
    """The answer to "delete everything about me?". It carries no user id: only the
    presser's own data can be deleted, so there is nothing to forge."""

    confirm: bool


def me_keyboard(catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for style in STYLES:
        builder.button(
            text=catalog.text(lang, f"actions.button.style_{style}"),
            callback_data=StyleCD(style=style),
        )
    return builder.as_markup()


def forget_keyboard(catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=catalog.text(lang, "me.forget_yes"), callback_data=ForgetCD(confirm=True))
    builder.button(text=catalog.text(lang, "me.forget_no"), callback_data=ForgetCD(confirm=False))
    return builder.as_markup()
