"""Buttons the pipeline put under its replies."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import CallbackQuery
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Settings
from bot.handlers._common import deliver, incoming_from
from bot.keyboards.pipeline import PipelineCD
from pipeline.handle import Pipeline

router = Router(name=__name__)


@router.callback_query(PipelineCD.filter())
async def on_action(
    query: CallbackQuery,
    callback_data: PipelineCD,
    bot: Bot,
    pipeline: Pipeline,
    session: AsyncSession,
    settings: Settings,
    trace_id: str,
) -> None:
    # Answer first: Telegram shows a spinner on the button until we do.
    await query.answer()
    chat_id = query.message.chat.id if query.message else query.from_user.id
    incoming = incoming_from(query.from_user, chat_id, "", trace_id, settings)
    reply = await pipeline.handle_action(callback_data.action, incoming, session)
    await deliver(bot, pipeline, session, incoming, reply)
