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
from pipeline.onboarding import Step
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


class ConsoleSession:
    """One terminal user: the last reply's buttons and, during onboarding, the step."""

    def __init__(self, core: Core, user: str, *, operator: bool) -> None:
        self.core = core
        self.user = user
        self.operator = operator
        self.buttons: list[Button] = []
        self.step: Step | None = None

    def incoming(self, text: str) -> Incoming:
        return Incoming(
            f"cli:{self.user}",
            CONSOLE_CHAT_ID,
            text,
            new_trace_id(),
            first_name=self.user,
            is_operator=self.operator,
        )

    async def send(self, text: str) -> Reply:
        incoming = self.incoming(text)
        pipeline, flow = self.core.pipeline, self.core.onboarding
        lang = message_language(incoming)
        action = self._pressed(text)
        if action == "onboarding:start":
            turn = flow.start(lang)
        elif self.step is not None and action is not None:
            turn = await flow.answer_button(incoming.user_id, self.step, action, lang)
        elif self.step is not None and not text.startswith(("/", "#")):
            turn = await flow.answer_text(incoming.user_id, self.step, text, lang)
        elif action is not None:
            return await pipeline.handle_action(action, incoming)
        else:
            return await pipeline.handle_message(incoming)
        self.step = turn.step
        return Reply(turn.text, turn.buttons)

    def _pressed(self, text: str) -> str | None:
        number = text[1:]
        if text.startswith("#") and number.isdigit() and 0 < int(number) <= len(self.buttons):
            return self.buttons[int(number) - 1].action
        return None


async def chat(core: Core, user: str, source: TextIO, out: TextIO, *, operator: bool) -> None:
    interactive = source.isatty()
    console = ConsoleSession(core, user, operator=operator)
    if interactive:
        lang = message_language(console.incoming(""))
        out.write(core.pipeline.catalog.text(lang, "chat.intro") + "\n")
    while True:
        if interactive:
            out.write("> ")
            out.flush()
        line = await asyncio.to_thread(source.readline)
        if not line or (interactive and not line.strip()):
            break
        text = line.strip()
        if text:
            console.buttons = render(await console.send(text), out)


async def run_chat(settings: Settings, user: str, *, operator: bool = False) -> None:
    await upgrade_async(settings.stepan.database_url)
    core = build_core(settings)
    try:
        await chat(core, user, sys.stdin, sys.stdout, operator=operator)
    finally:
        await core.close()
