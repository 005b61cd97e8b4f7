"""Long polling that stores each batch before Telegram forgets it.

Telegram forgets an update once a later ``getUpdates`` asks for a higher offset.
aiogram's own polling asks again as soon as it has started the handlers of a batch,
so an update is confirmed before it is handled and a crash loses it for good. Here
the order is fetch, store (bot/inbox.py: one transaction for the batch, claimed by
this instance), then confirm (the next ``getUpdates``): if the store fails, the offset
does not move and the same batch is fetched again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import TypeVar

from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import GetUpdates
from aiogram.types import Update

from bot.inbox import CLAIMED, Inbox

logger = logging.getLogger(__name__)

#: Seconds one getUpdates waits on Telegram's side for something to arrive.
POLL_TIMEOUT_S = 25
#: Back-off between failed getUpdates (or failed stores), doubling up to the max.
BACKOFF_START_S = 0.5
BACKOFF_MAX_S = 15.0

T = TypeVar("T")


async def until_stopped(awaitable: Awaitable[T], stop: asyncio.Event) -> T | None:
    """The awaitable's result, or None (and the awaitable cancelled) once ``stop`` is set."""
    task = asyncio.ensure_future(awaitable)
    stopper = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        stopper.cancel()
        return task.result()
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    return None


class Poller:
    def __init__(
        self,
        dispatcher: Dispatcher,
        bot: Bot,
        inbox: Inbox,
        *,
        timeout_s: int = POLL_TIMEOUT_S,
    ) -> None:
        self._dispatcher = dispatcher
        self._bot = bot
        self._inbox = inbox
        self._timeout_s = timeout_s
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set; the handlers started keep running."""
        allowed = self._dispatcher.resolve_used_update_types()
        offset: int | None = None
        delay = BACKOFF_START_S
        while not stop.is_set():
            request = GetUpdates(offset=offset, timeout=self._timeout_s, allowed_updates=allowed)
            try:
                updates = await until_stopped(
                    self._bot(request, request_timeout=self._timeout_s + 10), stop
                )
                if updates is None:
                    return
                new = await self._inbox.store(updates) if updates else []
            except TelegramRetryAfter as exc:
                logger.warning("getUpdates: flood control, waiting %ss", exc.retry_after)
                await until_stopped(asyncio.sleep(exc.retry_after), stop)
                continue
            except Exception as exc:
                # The class only: the message of a network error names the URL,
                # and the URL holds the bot token.
                logger.warning("polling: %s, retrying in %.1fs", type(exc).__name__, delay)
                await until_stopped(asyncio.sleep(delay), stop)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            delay = BACKOFF_START_S
            if updates:
                # Stored: the next getUpdates may confirm them.
                offset = updates[-1].update_id + 1
            for update in new:
                self._spawn(update)

    def _spawn(self, update: Update) -> None:
        task = asyncio.create_task(self._feed(update))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _feed(self, update: Update) -> None:
        try:
            await self._dispatcher.feed_update(self._bot, update, **{CLAIMED: True})
        except Exception:
            logger.exception("update %s: handler failed", update.update_id)
