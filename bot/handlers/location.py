"""A location sent alone (a pin, a venue; not a live location's updates): Stepan asks
whether it is the farm or which field, and the button sets the point
(docs/weather.md; the question and its buttons are the pipeline's)."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import Message, Update

from bot.config import Settings
from bot.filters import HasLocation
from bot.handlers._common import deliver, message_incoming
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor

router = Router(name=__name__)


@router.message(HasLocation())
async def on_location(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    settings: Settings,
    texts: Texts,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    incoming = message_incoming(message, "", trace_id, settings, event_update)
    if incoming is None or message.location is None:
        return
    where = message.location
    reply = await pipeline.handle_location(incoming, where.latitude, where.longitude)
    await deliver(bot, profile_editor, incoming, reply, texts)
