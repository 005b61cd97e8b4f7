"""A user's own buttons: correcting what /me shows (name, language, the level they
ask for, a conversation summary) and forgetting their data. None carries a user id:
only the presser's own profile can change, so there is nothing to forge. Each packs
one `pipeline.actions` type (``callback_data`` in bot/keyboards/pipeline.py) and
unpacks back to it; the /me card's rows are built in pipeline/buttons/me.py."""

from __future__ import annotations

from typing import assert_never

from aiogram.filters.callback_data import CallbackData

from bot.keyboards.ids import RowId
from pipeline.actions import (
    ForgetAction,
    MeAction,
    MeForgetTalkAction,
    MeLanguageAction,
    MeLevelAction,
    MeNameAction,
    MeWarningsAction,
)
from pipeline.profiles import Expertise
from pipeline.types import Language


class ForgetCD(CallbackData, prefix="fg"):
    """The answer to "delete everything about me?". It carries no user id: only the
    presser's own data can be deleted, so there is nothing to forge."""

    confirm: bool

    def to_action(self) -> ForgetAction:
        return ForgetAction(self.confirm)


class MeNameCD(CallbackData, prefix="mn"):
    """«✏️ Змінити ім'я»: the next message is the name."""

    def to_action(self) -> MeNameAction:
        return MeNameAction()


class MeLanguageCD(CallbackData, prefix="ml"):
    language: Language

    def to_action(self) -> MeLanguageAction:
        return MeLanguageAction(self.language)


class MeLevelCD(CallbackData, prefix="mv"):
    """The level the user asks for (refused while an operator's lock stands)."""

    level: Expertise

    def to_action(self) -> MeLevelAction:
        return MeLevelAction(self.level)


class MeWarningsCD(CallbackData, prefix="mw"):
    """🔕/🔔 The weather warnings Stepan sends first, off or on."""

    on: bool

    def to_action(self) -> MeWarningsAction:
        return MeWarningsAction(self.on)


class MeForgetTalkCD(CallbackData, prefix="mt"):
    """🗑 under one conversation summary: deletes it (only the presser's own)."""

    summary: RowId

    def to_action(self) -> MeForgetTalkAction:
        return MeForgetTalkAction(self.summary)


MeCD = MeNameCD | MeLanguageCD | MeLevelCD | MeWarningsCD | MeForgetTalkCD | ForgetCD


def me_callback_data(action: MeAction) -> MeCD:
    match action:
        case MeNameAction():
            return MeNameCD()
        case MeLanguageAction(language=language):
            return MeLanguageCD(language=language)
        case MeLevelAction(level=level):
            return MeLevelCD(level=level)
        case MeWarningsAction(on=on):
            return MeWarningsCD(on=on)
        case MeForgetTalkAction(summary_id=summary):
            return MeForgetTalkCD(summary=summary)
        case ForgetAction(confirm=confirm):
            return ForgetCD(confirm=confirm)
        case _:
            assert_never(action)
