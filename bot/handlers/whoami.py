"""/whoami: anyone may ask their Telegram id and role (operators need the ids)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.config import Settings
from pipeline.language.texts import Texts

router = Router(name=__name__)


@router.message(Command("whoami"))
async def on_whoami(message: Message, texts: Texts, settings: Settings) -> None:
    if message.from_user is None:
        return
    is_operator = message.from_user.id in settings.agx.operator_ids
    role = texts.text("admin.role_operator" if is_operator else "admin.role_user")
    await message.answer(texts.text("admin.whoami", telegram_id=message.from_user.id, role=role))
