"""Operators: /status — scheduled jobs and the memory-service link."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from pipeline.admin.cards import status_card
from pipeline.admin.platform import PlatformStatus
from pipeline.language.texts import Texts

router = Router(name=__name__)


@router.message(Command("status"))
async def on_status(message: Message, platform: PlatformStatus, texts: Texts) -> None:
    checks = await platform.collect()
    await message.answer(status_card(checks, texts))
