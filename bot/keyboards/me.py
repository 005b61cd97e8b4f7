"""A user's own buttons: correcting what /me shows (name, language, style, the level
they ask for) and forgetting their data. None carries a user id: only the presser's
own profile can change, so there is nothing to forge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.keyboards.ids import RowId
from bot.keyboards.pipeline import StyleCD
from pipeline.language.catalog import Catalog
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Expertise
from pipeline.types import Language


class ForgetCD(CallbackData, prefix="fg"):
    """The answer to "delete everything about me?". It carries no user id: only the
    presser's own data can be deleted, so there is nothing to forge."""

    confirm: bool


class MeNameCD(CallbackData, prefix="mn"):
    """«✏️ Змінити ім'я»: the next message is the name."""


class MeLanguageCD(CallbackData, prefix="ml"):
    language: Language


class MeLevelCD(CallbackData, prefix="mv"):
    """The level the user asks for (refused while an operator's lock stands)."""

    level: Expertise


class MeForgetTalkCD(CallbackData, prefix="mt"):
    """🗑 under one conversation summary: deletes it (only the presser's own)."""

    summary: RowId


@dataclass(frozen=True, slots=True)
class TalkButton:
    """A summary shown on /me: its row id and the day it ended («12.05»)."""

    summary_id: int
    day: str


def me_keyboard(
    catalog: Catalog, lang: Language, talks: Sequence[TalkButton] = ()
) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for style in STYLES:
        builder.button(
            text=catalog.text(lang, f"actions.button.style_{style}"),
            callback_data=StyleCD(style=style),
        )
    builder.button(text=catalog.text(lang, "me.button.name"), callback_data=MeNameCD())
    for language in get_args(Language):
        builder.button(
            text=catalog.text(lang, f"me.button.language_{language}"),
            callback_data=MeLanguageCD(language=language),
        )
    for level in EXPERTISE_LEVELS:
        builder.button(
            text=catalog.text(lang, f"me.button.level_{level}"),
            callback_data=MeLevelCD(level=level),
        )
    for n, talk in enumerate(talks, start=1):
        builder.button(
            text=catalog.text(lang, "me.button.forget_talk", n=n, day=talk.day),
            callback_data=MeForgetTalkCD(summary=talk.summary_id),
        )
    builder.adjust(
        len(STYLES), 1 + len(get_args(Language)), len(EXPERTISE_LEVELS), *([3] * len(talks))
    )
    return builder.as_markup()


def forget_keyboard(catalog: Catalog, lang: Language) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    builder.button(text=catalog.text(lang, "me.forget_yes"), callback_data=ForgetCD(confirm=True))
    builder.button(text=catalog.text(lang, "me.forget_no"), callback_data=ForgetCD(confirm=False))
    return builder.as_markup()
