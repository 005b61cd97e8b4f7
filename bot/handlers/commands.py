"""/start and /help: light intents, answered through the pipeline like any text."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandStart

from bot.handlers._common import answer_text

router = Router(name=__name__)

router.message.register(answer_text, CommandStart())
router.message.register(answer_text, Command("help"))
