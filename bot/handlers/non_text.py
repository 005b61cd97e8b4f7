"""Photos, voice, stickers, locations...: say what Stepan understands."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from bot.render import with_retry_after
from pipeline.handle import Pipeline, message_language
from pipeline.types import Incoming

router = Router(name=__name__)


@router.message(~F.text)
async def on_non_text(message: Message, pipeline: Pipeline) -> None:
    user = message.from_user
    language_code = user.language_code if user else None
    lang = message_language(Incoming("", message.chat.id, "", "", language_code=language_code))
    text = pipeline.catalog.text(lang, "bot.non_text")
    await with_retry_after(lambda: message.answer(text, parse_mode=None))
