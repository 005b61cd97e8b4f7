"""`stepan chat`: talk to the same pipeline and database in a terminal, no token.

Works interactively and with piped input (one message a line); buttons are shown
numbered and a line like ``#2`` presses button 2 of the last reply.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from bot.config import Settings
from bot.factory import Core, build_core
from bot.middlewares.trace import new_trace_id
from db.migrate import upgrade_async
from pipeline.handle import message_language
from pipeline.types import Button, Incoming, Reply

CONSOLE_CHAT_ID = 0


def render(reply: Reply, out: TextIO) -> list[Button]:
    """Print a reply; return its buttons in the order they are numbered."""
    out.write(f"Степан: {reply.text}\n")
    buttons = [button for row in reply.buttons for button in row]
    for number, button in enumerate(buttons, start=1):
        out.write(f"  [#{number}] {button.text}\n")
    for attachment in (reply.document, reply.photo):
        if attachment is not None:
            out.write(f"  (file: {attachment.filename}, {len(attachment.content)} bytes)\n")
    out.flush()
    return buttons


async def chat(core: Core, user: str, source: TextIO, out: TextIO, *, operator: bool) -> None:
    interactive = source.isatty()
    incoming = Incoming(f"cli:{user}", CONSOLE_CHAT_ID, "", "", first_name=user)
    if interactive:
        out.write(core.pipeline.catalog.text(message_language(incoming), "chat.intro") + "\n")
    buttons: list[Button] = []
    while True:
        if interactive:
            out.write("> ")
            out.flush()
        line = await asyncio.to_thread(source.readline)
        if not line or (interactive and not line.strip()):
            break
        text = line.strip()
        if not text:
            continue
        incoming = Incoming(
            f"cli:{user}",
            CONSOLE_CHAT_ID,
            text,
            new_trace_id(),
            first_name=user,
            is_operator=operator,
        )
        async with core.session_factory() as session:
            if text.startswith("#") and text[1:].isdigit() and 0 < int(text[1:]) <= len(buttons):
                action = buttons[int(text[1:]) - 1].action
                reply = await core.pipeline.handle_action(action, incoming, session)
            else:
                reply = await core.pipeline.handle_message(incoming, session)
        buttons = render(reply, out)


async def run_chat(settings: Settings, user: str, *, operator: bool = False) -> None:
    await upgrade_async(settings.stepan.database_url)
    core = build_core(settings)
    try:
        await chat(core, user, sys.stdin, sys.stdout, operator=operator)
    finally:
        await core.close()
