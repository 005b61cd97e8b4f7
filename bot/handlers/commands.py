"""/start and /help: light intents, answered through the pipeline like any text;
/help then lists the commands (bot/commands.py) the asker may use."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message, Update

from bot.commands import help_list
from bot.config import Settings
from bot.handlers._common import answer_text, deliver, text_incoming, user_language
from pipeline.handle import Pipeline
from pipeline.i18n import Catalog
from pipeline.memory import ProfileEditor

router = Router(name=__name__)

router.message.register(answer_text, CommandStart())


@router.message(Command("help"))
async def on_help(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    catalog: Catalog,
    settings: Settings,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    incoming = text_incoming(message, trace_id, settings, event_update)
    if incoming is None:
        return
    reply = await pipeline.handle_message(incoming)
    commands = help_list(catalog, user_language(message.from_user), operator=incoming.is_operator)
    reply = replace(reply, text=f"{reply.text}\n\n{commands}")
    await deliver(bot, profile_editor, incoming, reply)
