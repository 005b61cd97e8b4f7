"""A command typed during onboarding works as always; onboarding then waits.

Commands are answered by their own routers, so the pause is put around them here
(on the root router's messages): after the command's reply, the step is kept in
``Onboarding.paused`` and one «Продовжити знайомство» button is offered (issue 16
point 1). /cancel is onboarding's own command and is left alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.fsm.context import FSMContext
from aiogram.types import Message, TelegramObject

from bot.delivery.render import send_reply
from bot.middlewares.language import spoken_language
from pipeline.onboarding.flow import OnboardingFlow
from pipeline.types import Reply

#: Commands that do not pause onboarding: /cancel leaves it.
OWN_COMMANDS = frozenset({"cancel"})


def command_name(text: str | None) -> str | None:
    """``/me@StepanBot args`` -> ``me``; None for text that is not a command."""
    if not text or not text.startswith("/"):
        return None
    return text[1:].split(maxsplit=1)[0].split("@", 1)[0].lower() if len(text) > 1 else ""


class OnboardingPauseMiddleware(BaseMiddleware):
    def __init__(self, active: str | None, paused: str | None) -> None:
        # ``StatesGroup`` members read as their state names ("Onboarding:active").
        self._active = active
        self._paused = paused

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        name = command_name(event.text) if isinstance(event, Message) else None
        if name is None or name in OWN_COMMANDS or data.get("raw_state") != self._active:
            return await handler(event, data)
        result = await handler(event, data)
        state: FSMContext | None = data.get("state")
        flow: OnboardingFlow | None = data.get("onboarding")
        bot: Bot | None = data.get("bot")
        if state is None or flow is None or bot is None or not isinstance(event, Message):
            return result
        if await state.get_state() != self._active:
            return result  # the command itself changed the state (/forget, /start...)
        await state.set_state(self._paused)
        text, buttons = flow.paused_offer(spoken_language(data, event.from_user))
        await send_reply(bot, event.chat.id, Reply(text, buttons))
        return result
