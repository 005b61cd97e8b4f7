"""Catch-all: any other text message goes to the pipeline."""

from __future__ import annotations

from aiogram import Router

from bot.filters import HasText
from bot.handlers._common import answer_text

router = Router(name=__name__)

router.message.register(answer_text, HasText())
