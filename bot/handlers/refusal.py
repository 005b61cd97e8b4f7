"""Operator commands and buttons from anyone else: a polite refusal, nothing changed.

Placed after the operators router: its IsOperator filter lets only operators in,
so whatever reaches here for these commands or callback prefixes is not one.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot.commands import OPERATOR_ONLY
from bot.handlers._common import user_language
from bot.handlers.operator_learning import LearningCD
from bot.keyboards.admin import FarmCardCD, FarmCD, FarmIotCD, ProfileCD, TermCD
from pipeline.i18n import Catalog

router = Router(name=__name__)


@router.message(Command(*OPERATOR_ONLY))
async def refuse_command(message: Message, catalog: Catalog) -> None:
    await message.answer(catalog.text(user_language(message.from_user), "admin.not_operator"))


@router.callback_query(ProfileCD.filter())
@router.callback_query(FarmCD.filter())
@router.callback_query(FarmIotCD.filter())
@router.callback_query(FarmCardCD.filter())
@router.callback_query(TermCD.filter())
@router.callback_query(LearningCD.filter())
async def refuse_button(query: CallbackQuery, catalog: Catalog) -> None:
    await query.answer(
        catalog.text(user_language(query.from_user), "admin.not_operator"), show_alert=True
    )
