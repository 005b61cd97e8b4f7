"""Operator checks. Used on every operator command AND callback router: a forged
callback from a non-operator must never reach an operator handler."""

from __future__ import annotations

from aiogram.filters import BaseFilter
from aiogram.fsm.state import State
from aiogram.types import CallbackQuery, Message

from bot.config import Settings


class IsOperator(BaseFilter):
    async def __call__(self, event: Message | CallbackQuery, settings: Settings) -> bool:
        user = event.from_user
        return user is not None and user.id in settings.agx.operator_ids


# aiogram runs every synchronous filter (a MagicFilter like ``F.text``, a bare State)
# in a worker thread (asyncio.to_thread): a thread hop per filter per update, the
# largest single cost of a light message in the profile. The filters below are
# coroutines, so the catch-all path stays on the event loop.


class HasText(BaseFilter):
    """A message with text (``F.text`` without the thread hop). Invert with ``~``."""

    async def __call__(self, message: Message) -> bool:
        return message.text is not None


class IsImage(BaseFilter):
    """A photo, or an image sent as a file (``F.photo | F.document.mime_type
    .startswith("image/")`` without the thread hop on every text message)."""

    async def __call__(self, message: Message) -> bool:
        if message.photo:
            return True
        document = message.document
        return bool(document and document.mime_type and document.mime_type.startswith("image/"))


class HasLocation(BaseFilter):
    """A location (a pin or a venue): ``F.location`` without the thread hop on every
    message that is not text."""

    async def __call__(self, message: Message) -> bool:
        return message.location is not None


class IsSpoken(BaseFilter):
    """A voice message, an audio file or a round video note: something to listen to."""

    async def __call__(self, message: Message) -> bool:
        return bool(message.voice or message.audio or message.video_note)


class IsCommand(BaseFilter):
    """A message whose text (or caption, as aiogram's ``Command`` reads) starts with
    ``/``: the router-level filter that lets every other message skip the command
    routers in one check instead of one ``Command`` parse per handler."""

    async def __call__(self, message: Message) -> bool:
        text = message.text or message.caption
        return text is not None and text.startswith("/")


class PlainText(BaseFilter):
    """Text that is not a command."""

    async def __call__(self, message: Message) -> bool:
        return message.text is not None and not message.text.startswith("/")


class HasState(BaseFilter):
    """The user is in some FSM state (onboarding, typing a new name...): the router-
    level filter that lets every other message skip the state-bound routers."""

    async def __call__(self, event: Message | CallbackQuery, raw_state: str | None) -> bool:
        return raw_state is not None


class InState(BaseFilter):
    """The user's FSM state is ``state`` (a bare State filter runs in a thread)."""

    def __init__(self, state: State) -> None:
        self._state = state.state

    async def __call__(self, event: Message | CallbackQuery, raw_state: str | None) -> bool:
        return raw_state == self._state
