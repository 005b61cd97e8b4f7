"""The Bot API calls of start-up (deleteWebhook, setMyCommands, getMe), never fatal.

Telegram answering 502 for a minute, or a Bot API server that lacks a method (an
emulator without ``setMyCommands``), must not stop ``stepan run``: polling starts
anyway, and what failed is logged and tried again in the background with growing
delays until it works or the bot stops. A method the server does not have (404) is
logged once and left alone: asking again will not make it appear.

getMe is different only in that aiogram's polling needs the bot's identity before
its first ``getUpdates``: if Telegram cannot tell it yet, polling starts with what
the token itself says (the bot's id) and the real answer replaces it when it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot
from aiogram.exceptions import TelegramNotFound
from aiogram.types import User

from bot.commands import set_commands
from pipeline.language.catalog import Catalog

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class StartupCalls:
    """Dispatcher startup/shutdown hooks: ``start`` never raises and returns after at
    most one getMe; ``stop`` cancels what is still being retried."""

    def __init__(
        self,
        bot: Bot,
        catalog: Catalog,
        operators: frozenset[int],
        *,
        first_delay: float = 2.0,
        max_delay: float = 300.0,
        sleep: Sleep = asyncio.sleep,
        webhook: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._bot = bot
        self._catalog = catalog
        self._operators = operators
        self._first_delay = first_delay
        self._max_delay = max_delay
        self._sleep = sleep
        #: Webhook mode: this sets the webhook (or does nothing) instead of deleteWebhook.
        self._webhook = webhook
        self._tasks: set[asyncio.Task[None]] = set()
        #: Filled in as each call succeeds; read by tests and /status-like checks.
        self.done: set[str] = set()

    async def start(self) -> None:
        if self._webhook is None:
            self._background("deleteWebhook", self._delete_webhook)
        else:
            self._background("setWebhook", self._webhook)
        self._background("setMyCommands", self._set_commands)
        if not await self._get_me():
            # Polling calls bot.me() first; without an identity it would stop the bot.
            self._bot._me = User(id=self._bot.id, is_bot=True, first_name="Stepan")
            self._background("getMe", self._get_me_or_raise)

    async def stop(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def wait(self) -> None:
        """Until every background call has finished (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ------------------------------------------------------------------ the calls

    async def _delete_webhook(self) -> None:
        await self._bot.delete_webhook(drop_pending_updates=False)

    async def _set_commands(self) -> None:
        await set_commands(self._bot, self._catalog, self._operators)

    async def _get_me(self) -> bool:
        try:
            await self._get_me_or_raise()
            return True
        except Exception as exc:
            logger.warning(
                "getMe failed at start-up (%s: %s); polling anyway", type(exc).__name__, exc
            )
            return False

    async def _get_me_or_raise(self) -> None:
        me = await self._bot.get_me()
        self._bot._me = me
        self.done.add("getMe")
        logger.info("Stepan is up as @%s", me.username)

    # ------------------------------------------------------------------ retrying

    def _background(self, name: str, call: Callable[[], Awaitable[None]]) -> None:
        task = asyncio.create_task(self._until_done(name, call), name=f"startup-{name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _until_done(self, name: str, call: Callable[[], Awaitable[None]]) -> None:
        delay = self._first_delay
        while True:
            try:
                await call()
            except TelegramNotFound as exc:
                logger.warning("the Bot API server has no %s (%s); skipped", name, exc.message)
                return
            except Exception as exc:
                logger.warning(
                    "%s failed (%s: %s); trying again in %.0fs",
                    name,
                    type(exc).__name__,
                    exc,
                    delay,
                )
                await self._sleep(delay)
                delay = min(self._max_delay, delay * 2)
                continue
            self.done.add(name)
            return
