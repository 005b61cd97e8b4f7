"""/start and /help: light intents, answered through the pipeline like any text;
/help then teaches: what Stepan can do with an example each, the commands the asker
may use (bot/commands.py), and buttons that run the common requests."""

from __future__ import annotations

from dataclasses import replace

from aiogram import Bot, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message, Update

from bot.commands import help_buttons, help_text
from bot.config import Settings
from bot.handlers._common import answer_text, deliver, text_incoming
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import ProfileEditor

router = Router(name=__name__)

router.message.register(answer_text, CommandStart())


@router.message(Command("help"))
async def on_help(
    message: Message,
    bot: Bot,
    pipeline: Pipeline,
    profile_editor: ProfileEditor,
    texts: Texts,
    settings: Settings,
    trace_id: str,
    event_update: Update | None = None,
) -> None:
    incoming = text_incoming(message, trace_id, settings, event_update)
    if incoming is None:
        return
    # Through the pipeline like any message (counted, recorded); its light reply is
    # the intro, the rest comes from the registry (bot/commands.py).
    reply = await pipeline.handle_message(incoming)
    intro = reply.text.removesuffix(f"\n\n{reply.footer}") if reply.footer else reply.text
    text = help_text(texts, intro, operator=incoming.is_operator)
    if reply.footer:  # an operator's technical footer stays the last line
        text = f"{text}\n\n{reply.footer}"
    await deliver(
        bot,
        profile_editor,
        incoming,
        replace(reply, text=text, buttons=help_buttons(texts)),
    )
