"""Long polling that stores each batch before Telegram forgets it.

Telegram forgets an update once a later ``getUpdates`` asks for a higher offset.
aiogram's own polling asks again as soon as it has started the handlers of a batch,
so an update is confirmed before it is handled and a crash loses it for good. Here
the order is fetch, store (bot/transport/inbox.py: one transaction for the batch, claimed by
this instance), then confirm (the next ``getUpdates``): if the store fails, the offset
does not move and the same batch is fetched again. An update aiogram cannot read is
kept as ``poison`` and passed, instead of failing its whole batch forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from aiogram import Bot, Dispatcher
from aiogram.exceptions import ClientDecodeError, TelegramRetryAfter
from aiogram.methods import GetUpdates
from aiogram.types import Update

from bot.transport.inbox import CLAIMED, Inbox
from bot.transport.unstored import PATIENCE_S, UnstoredAnswers

logger = logging.getLogger(__name__)

#: Seconds one getUpdates waits on Telegram's side for something to arrive.
POLL_TIMEOUT_S = 25
#: Back-off between failed getUpdates (or failed stores), doubling up to the max.
BACKOFF_START_S = 0.5
BACKOFF_MAX_S = 15.0

#: A batch whose store failed is fetched and stored again after this (new messages
#: meanwhile are answered at the next try, so it stays short).
STORE_RETRY_S = 1.0
#: While a store waits (a lock held elsewhere), Telegram is asked this often for
#: updates that arrived meanwhile, to answer them.
PEEK_EVERY_S = 1.0
PEEK_TIMEOUT_S = 5

T = TypeVar("T")


class StoreFailed(Exception):
    """The inbox could not store a batch (the cause is the database's error)."""


def salvage(data: Any, bot: Bot) -> tuple[list[Update], list[tuple[int, dict[str, Any]]]] | None:
    """A getUpdates answer aiogram could not read as a whole (one update of a shape it
    does not know fails the batch, and polling would ask for the same batch forever):
    the updates it can read, and the ``(update_id, raw)`` of those it cannot. None if
    the answer is no batch of updates with ids at all."""
    items = data.get("result") if isinstance(data, dict) and data.get("ok") is True else None
    if not isinstance(items, list):
        return None
    readable: list[Update] = []
    unreadable: list[tuple[int, dict[str, Any]]] = []
    for item in items:
        update_id = item.get("update_id") if isinstance(item, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            return None  # nothing to move the offset past
        try:
            readable.append(Update.model_validate(item, context={"bot": bot}))
        except ValueError:
            unreadable.append((update_id, item))
    return readable, unreadable


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
        unstored: UnstoredAnswers | None = None,
    ) -> None:
        self._unstored = unstored
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
            unreadable: list[tuple[int, dict[str, Any]]] = []
            try:
                try:
                    updates = await until_stopped(
                        self._bot(request, request_timeout=self._timeout_s + 10), stop
                    )
                except ClientDecodeError as exc:
                    batch = salvage(exc.data, self._bot)
                    if batch is None:
                        raise
                    updates, unreadable = batch
                if updates is None:
                    return
                new = await self._store(updates, request) if updates else []
                await self._give_up(unreadable)
            except TelegramRetryAfter as exc:
                logger.warning("getUpdates: flood control, waiting %ss", exc.retry_after)
                await until_stopped(asyncio.sleep(exc.retry_after), stop)
                continue
            except StoreFailed as exc:
                # Answered meanwhile (bot/transport/unstored.py); the same batch, and
                # what came after it, is fetched again soon.
                logger.warning("polling: batch not stored (%s)", type(exc.__cause__).__name__)
                await until_stopped(asyncio.sleep(STORE_RETRY_S), stop)
                continue
            except Exception as exc:
                # The class only: the message of a network error names the URL,
                # and the URL holds the bot token.
                logger.warning("polling: %s, retrying in %.1fs", type(exc).__name__, delay)
                await until_stopped(asyncio.sleep(delay), stop)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            delay = BACKOFF_START_S
            if updates or unreadable:
                # Stored: the next getUpdates may confirm them.
                last = max([u.update_id for u in updates] + [uid for uid, _ in unreadable])
                offset = last + 1
            for update in new:
                self._spawn(update)

    async def _store(self, updates: list[Update], request: GetUpdates) -> list[Update]:
        """The inbox's store; while it fails or keeps the batch waiting past
        ``PATIENCE_S``, the farmers are answered anyway (bot/transport/unstored.py):
        the batch's, and those whose updates arrive while the store waits. Nothing
        is confirmed until it is stored, so Telegram keeps it for the replay."""
        if self._unstored is None:
            return await self._inbox.store(updates)
        store = asyncio.ensure_future(self._inbox.store(updates))
        try:
            new = await asyncio.wait_for(asyncio.shield(store), PATIENCE_S)
        except TimeoutError:
            await self._unstored(updates)
            new = await self._answer_while_waiting(store, request)
        except Exception as exc:
            await self._unstored(updates)
            raise StoreFailed from exc
        self._unstored.forget(update.update_id for update in updates)
        return new

    async def _answer_while_waiting(
        self, store: asyncio.Future[list[Update]], request: GetUpdates
    ) -> list[Update]:
        """Until the store ends, the same batch is asked for again every
        ``PEEK_EVERY_S`` (the same offset: nothing is confirmed), so a message sent
        meanwhile gets its answer too instead of waiting behind the store."""
        assert self._unstored is not None
        peek = GetUpdates(offset=request.offset, timeout=0, allowed_updates=request.allowed_updates)
        while not store.done():
            with contextlib.suppress(Exception):
                arrived: list[Update] = await self._bot(peek, request_timeout=PEEK_TIMEOUT_S)
                await self._unstored(arrived)
            await asyncio.wait({store}, timeout=PEEK_EVERY_S)
        try:
            return store.result()
        except Exception as exc:
            raise StoreFailed from exc

    async def _give_up(self, unreadable: list[tuple[int, dict[str, Any]]]) -> None:
        """Updates of a batch this aiogram cannot read (a newer Bot API's shape): kept
        in the inbox as ``poison`` (so the offset may pass them) and logged."""
        for update_id, raw in unreadable:
            logger.error("polling: update %s could not be read, given up", update_id)
            if await self._inbox.store_raw(update_id, raw):
                await self._inbox.finish(update_id, "poison")

    def _spawn(self, update: Update) -> None:
        task = asyncio.create_task(self._feed(update))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _feed(self, update: Update) -> None:
        try:
            await self._dispatcher.feed_update(self._bot, update, **{CLAIMED: True})
        except Exception:
            logger.exception("update %s: handler failed", update.update_id)
