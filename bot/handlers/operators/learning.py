"""Operators: /learnings — what Stepan learned from 👎, 🛠 and corrections, and 🗑
(its button goes the one path of every button: pipeline/admin/buttons.py)."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.keyboards.admin import LearningCD
from bot.keyboards.pipeline import keyboard
from pipeline.admin.keyboards import learnings_buttons
from pipeline.language.texts import Texts
from pipeline.learning.feedback import Learnings

__all__ = ["SHOWN", "LearningCD", "router"]

router = Router(name=__name__)

#: Listed per /learnings (the newest); older ones stay in the table.
SHOWN = 20


@router.message(Command("learnings"))
async def on_learnings(message: Message, learnings: Learnings, texts: Texts) -> None:
    items = await learnings.items(SHOWN)
    if not items:
        await message.answer(texts.text("learning.learnings_none"))
        return
    lines = [texts.text("learning.learnings_header")]
    for item in items:
        lines.append(
            texts.text(
                "learning.learnings_item",
                id=item.id,
                source=item.source,
                intent=item.intent or "-",
                rule=item.rule,
            )
        )
    buttons = learnings_buttons([item.id for item in items], texts)
    await message.answer("\n".join(lines), reply_markup=keyboard(buttons))
