"""Operators: /profile card with buttons, /profile [id] set key=value. The card and
the edit are pipeline services (pipeline/admin/); its buttons go the one path of
every button (bot/handlers/actions.py, pipeline/admin/buttons.py)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.handlers._cards import answer_card, answer_edit
from pipeline.admin.buttons import AdminServices
from pipeline.admin.edits import parse_profile_edit
from pipeline.language.texts import Texts

router = Router(name=__name__)


@router.message(Command("profile"), F.text.regexp(r"^/profile(@\w+)?\s+(-?\d+\s+)?set\b"))
async def on_profile_set(
    message: Message, command: CommandObject, admin: AdminServices, texts: Texts
) -> None:
    apply = admin.profile_edits.apply
    await answer_edit(message, command, texts, parse=parse_profile_edit, apply=apply)


@router.message(Command("profile"))
async def on_profile(
    message: Message, command: CommandObject, admin: AdminServices, texts: Texts
) -> None:
    await answer_card(
        message, command, texts, card=admin.cards.profile, usage_key="admin.usage_profile"
    )
