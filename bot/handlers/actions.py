"""Buttons the pipeline put under its replies."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, Message

from bot.config import Settings
from bot.handlers._common import deliver, incoming_from
from bot.keyboards.pipeline import PipelineCD
from bot.render import edit_text
from pipeline.handle import JOURNAL_ACTIONS, Pipeline
from pipeline.memory import ProfileEditor

router = Router(name=__name__)


@router.callback_query(PipelineCD.filter())
async def on_action(
    query: CallbackQuery,
    callback_data: PipelineCD,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    # Answer first: Telegram shows a spinner on the button until we do.
    await query.answer()
    chat_id = query.message.chat.id if query.message else query.from_user.id
    incoming = incoming_from(query.from_user, chat_id, "", trace_id, settings)
    reply = await pipeline.handle_action(callback_data.action, incoming)
    message = query.message
    if callback_data.kind in JOURNAL_ACTIONS and isinstance(message, Message) and message.text:
        # A consent card answers in place: it then shows what happened, and its
        # buttons are gone so nobody taps them again.
        await edit_text(bot, message.chat.id, message.message_id, reply.text, None)
        return
    await deliver(bot, profile_editor, incoming, reply)
