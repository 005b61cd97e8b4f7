"""Photos go to the pipeline (their caption is the question, the picture goes with the
agronomist's card; docs/knowledge.md); stickers, locations...: say what Stepan
understands (voice messages: bot/handlers/voice.py)."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, Router
from aiogram.types import Message, Update

from bot.config import Settings
from bot.filters import HasText, IsImage
from bot.handlers._common import deliver, message_incoming
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor
from pipeline.types import Reply

router = Router(name=__name__)


@router.message(IsImage())
async def on_photo(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    """A picture: its caption is the question; the pipeline says what it cannot see
    and offers the agronomist, who gets the picture (a photo's largest size; an image
    sent as a file goes by its caption only)."""
    incoming = message_incoming(message, message.caption or "", trace_id, settings, event_update)
    if incoming is None:
        return
    photo_id = message.photo[-1].file_id if message.photo else None
    reply = await pipeline.handle_message(replace(incoming, photo=True, photo_id=photo_id))
    await deliver(bot, profile_editor, incoming, reply, texts)


@router.message(~HasText())
async def on_non_text(
    message: Message,
    bot: Bot,
    texts: Texts,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    incoming = message_incoming(message, "", trace_id, settings)
    if incoming is None:
        return
    text = texts.text("bot.non_text")
    # deliver(): a user who blocked the bot is marked inactive, not retried.
    await deliver(bot, profile_editor, incoming, Reply(text))
