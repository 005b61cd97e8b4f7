"""Operators: /learnings — what Stepan learned from 👎, 🛠 and corrections, and 🗑."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from pipeline.language.texts import Texts
from pipeline.learning.feedback import Learnings

router = Router(name=__name__)

#: Listed per /learnings (the newest); older ones stay in the table.
SHOWN = 20


class LearningCD(CallbackData, prefix="ln"):
    learning: int


@router.message(Command("learnings"))
async def on_learnings(message: Message, learnings: Learnings, texts: Texts) -> None:
    items = await learnings.items(SHOWN)
    if not items:
        await message.answer(texts.text("learning.learnings_none"))
        return
    lines = [texts.text("learning.learnings_header")]
    builder = InlineKeyboardBuilder()
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
        builder.button(
            text=texts.text("learning.learnings_delete", id=item.id),
            callback_data=LearningCD(learning=item.id),
        )
    builder.adjust(4)
    await message.answer("\n".join(lines), reply_markup=builder.as_markup())


@router.callback_query(LearningCD.filter())
async def on_delete(
    query: CallbackQuery, callback_data: LearningCD, learnings: Learnings, texts: Texts
) -> None:
    deleted = await learnings.delete(callback_data.learning)
    key = "learning.learnings_deleted" if deleted else "learning.learnings_missing"
    await query.answer(texts.text(key, id=callback_data.learning))
