"""Operator commands and buttons from anyone else: a polite refusal, nothing changed.

Its own ``~IsOperator`` filter (messages and callbacks) says who it is for, so it
does not depend on sitting after the operators' branch. The buttons' use cases
refuse anyone else too (pipeline/admin/buttons.py ``OperatorOnly``, with the same
alert), so a press that came another way is refused all the same.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.commands import OPERATOR_ONLY
from bot.filters import IsOperator
from bot.keyboards.admin import OPERATOR_BUTTONS
from pipeline.language.texts import Texts

router = Router(name=__name__)
router.message.filter(~IsOperator())
router.callback_query.filter(~IsOperator())


@router.message(Command(*OPERATOR_ONLY))
async def refuse_command(message: Message, texts: Texts) -> None:
    await message.answer(texts.text("admin.not_operator"))


async def refuse_button(query: CallbackQuery, texts: Texts) -> None:
    await query.answer(texts.text("admin.not_operator"), show_alert=True)


for _button in OPERATOR_BUTTONS:
    router.callback_query(_button.filter())(refuse_button)
