"""Operators: /stats [period] — the section-15 quality figures and the daily chart."""

from __future__ import annotations

from datetime import timedelta

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.delivery.render import send_reply
from pipeline.language.texts import Texts
from pipeline.learning.stats import parse_period
from pipeline.learning.stats_report import QualityReport, period_text, stats_text
from pipeline.types import Reply

router = Router(name=__name__)

DEFAULT_PERIOD = timedelta(days=7)


@router.message(Command("stats"))
async def on_stats(
    message: Message, command: CommandObject, bot: Bot, quality: QualityReport, texts: Texts
) -> None:
    span = parse_period(command.args) if command.args else DEFAULT_PERIOD
    if span is None:
        await message.answer(texts.text("stats.usage"))
        return
    figures = await quality.figures(span)
    text = stats_text(figures, texts, period_text(span, texts))
    chart = await quality.chart(texts)
    if chart is None:
        text += "\n" + texts.text("stats.no_chart")
    # The figures are the caption when they fit; send_reply splits them off otherwise.
    await send_reply(bot, message.chat.id, Reply(text=text, photo=chart))
