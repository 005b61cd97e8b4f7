"""Every Bot API call survives Telegram's transient failures (a session middleware).

- 429 (flood control): the call waits ``retry_after``, however long, and is sent
  again: a reply is late, never dropped; kept in the database meanwhile, with
  the parts of its reply after it (bot/delivery/deferred.py), so a restart does not lose
  them either. The update's task is the queue: the same user's later updates wait
  behind it (UserOrderMiddleware), so replies keep their order, and other users
  are not held up (each update is its own task).
- 5xx, a dropped or refused connection, a timeout, a garbled answer (a proxy's HTML
  502): retried with exponential backoff and jitter, a bounded number of times, then
  the error goes to the caller.
- Anything else (400, 401, 403, 404) is an answer, not a fault: raised at once.

``getUpdates`` is left alone: aiogram's polling loop has its own backoff for it, and
a long poll must not be held here.

A retried send after a dropped connection may reach the chat twice if Telegram had
taken the first one; a lost reply is the worse failure.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import GetUpdates, TelegramMethod
from aiogram.methods.base import Response, TelegramType

if TYPE_CHECKING:
    from aiogram import Bot

    from bot.delivery.deferred import DeferredSends

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
TRANSIENT = (TelegramServerError, TelegramNetworkError, ClientDecodeError)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    #: Attempts after the first one for a 5xx or a network error.
    retries: int = 5
    first_delay: float = 0.5
    max_delay: float = 10.0
    #: Flood waits in a row before giving up (each one honoured in full).
    max_flood_waits: int = 10

    def delay(self, retry: int) -> float:
        """Backoff before retry number ``retry`` (1-based), with ±25 % jitter so that
        many calls failing together do not come back together."""
        base = min(self.max_delay, self.first_delay * 2.0 ** (retry - 1))
        jitter: float = random.uniform(0.75, 1.25)
        return base * jitter


class RetryMiddleware(BaseRequestMiddleware):
    """Install with ``bot.session.middleware(RetryMiddleware(deferred=...))``; with
    ``deferred`` (bot/delivery/deferred.py) a call waiting out flood control is also kept in
    the database, so a restart sends it instead of losing it."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        deferred: DeferredSends | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._deferred = deferred

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if isinstance(method, GetUpdates):  # aiogram's polling loop backs off on its own
            return await make_request(bot, method)  # type: ignore[arg-type]
        deferred = self._deferred
        # The telegram_outbox row of the call: kept at its first 429, or before it
        # was even tried (a part of a reply whose earlier part met flood control).
        ahead = deferred.kept_ahead(method) if deferred is not None else None
        kept: list[int] = [ahead] if ahead is not None else []
        try:
            response = await self._retried(make_request, bot, method, kept)
        except (TelegramRetryAfter, *TRANSIENT) as exc:
            if deferred is not None:  # given up here: sent from the outbox, if kept
                wait = exc.retry_after if isinstance(exc, TelegramRetryAfter) else 0
                await deferred.gave_up(method, kept[0] if kept else None, float(wait))
            raise
        except Exception:
            if deferred is not None:  # refused (400...): never sent, nor the rest
                await deferred.refused(method, kept[0] if kept else None)
            raise
        # (Cancelled, as at shutdown: the rows stay for the next start.)
        if kept and deferred is not None:
            await deferred.sent(kept[0])
        return response

    async def _retried(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
        kept: list[int],
    ) -> Response[TelegramType]:
        name = type(method).__name__
        retries = floods = 0
        while True:
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as exc:
                floods += 1
                if floods > self.policy.max_flood_waits:
                    raise
                logger.warning("telegram flood control on %s: waiting %ss", name, exc.retry_after)
                if not kept and self._deferred is not None:
                    row = await self._deferred.flooded(method, float(exc.retry_after))
                    kept.extend([row] if row is not None else [])
                await self._sleep(float(exc.retry_after))
            except TRANSIENT as exc:
                retries += 1
                if retries > self.policy.retries:
                    logger.error("telegram %s failed %d times: %s", name, retries, exc)
                    raise
                delay = self.policy.delay(retries)
                logger.warning(
                    "telegram %s failed (%s: %s); retry %d in %.1fs",
                    name,
                    type(exc).__name__,
                    exc,
                    retries,
                    delay,
                )
                await self._sleep(delay)
