"""Operators: /farm card with phase and sensor buttons, /farm [id] update key=value.

The card and the edits are pipeline services (pipeline/admin/card_replies.py,
pipeline/admin/editing.py: a phase set by hand locks it until "auto"; the sensor
switch sets has_iot_integration and the sensor integration together); the card's
buttons go the one path of every button (bot/handlers/actions.py,
pipeline/admin/buttons.py)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.handlers._cards import answer_card, answer_edit
from pipeline.admin.buttons import AdminServices
from pipeline.admin.edits import parse_farm_edit
from pipeline.language.texts import Texts

router = Router(name=__name__)


@router.message(Command("farm"), F.text.regexp(r"^/farm(@\w+)?\s+(-?\d+\s+)?update\b"))
async def on_farm_update(
    message: Message, command: CommandObject, admin: AdminServices, texts: Texts
) -> None:
    apply = admin.farm_edits.apply
    await answer_edit(message, command, texts, parse=parse_farm_edit, apply=apply)


@router.message(Command("farm"))
async def on_farm(
    message: Message, command: CommandObject, admin: AdminServices, texts: Texts
) -> None:
    await answer_card(message, command, texts, card=admin.cards.farm, usage_key="admin.usage_farm")
