"""Photos, voice, stickers, locations...: say what Stepan understands."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import Message

from bot.config import Settings
from bot.filters import HasText
from bot.handlers._common import deliver, incoming_from, user_language
from pipeline.i18n import Catalog
from pipeline.memory import ProfileEditor
from pipeline.types import Reply

router = Router(name=__name__)


@router.message(~HasText())
async def on_non_text(
    message: Message,
    bot: Bot,
    catalog: Catalog,
    profile_editor: ProfileEditor,
    settings: Settings,
    trace_id: str,
) -> None:
    if message.from_user is None:
        return
    incoming = incoming_from(message.from_user, message.chat.id, "", trace_id, settings)
    text = catalog.text(user_language(message.from_user), "bot.non_text")
    # deliver(): a user who blocked the bot is marked inactive, not retried.
    await deliver(bot, profile_editor, incoming, Reply(text))
