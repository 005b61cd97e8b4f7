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
taken the first one; a lost reply is the worse failure. A send that *timed out*
(aiogram's request timeout, 60 s: Telegram may well have taken it and not answered)
is not retried blindly (issue 29 point 4): with the outbox it is kept there and the
error goes to the caller at once (``ReplyTimedOut``: the update's task ends, the
farmer's next message is not held behind it for more than the one timeout), and the
outbox sends it once more after ``TIMEOUT_RESEND_S``; a second timeout ends it
(bot/delivery/deferred.py). Without the outbox (an upload, the console) it is tried
once more here. Either way one hang gives at most one duplicate.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramNetworkError, TelegramRetryAfter
from aiogram.methods import GetUpdates, TelegramMethod
from aiogram.methods.base import Response, TelegramType

from bot.delivery.deferred import DeferredSends
from bot.delivery.failures import TIMEOUT_RESEND_S, TRANSIENT, ReplyTimedOut, timed_out

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


def repeats_harm(method: TelegramMethod[Any]) -> bool:
    """A second copy of this call reaches the chat (an edit or a chat action does not)."""
    name = type(method).__name__
    return name.startswith(("Send", "Forward", "Copy")) and name != "SendChatAction"


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
                await deferred.gave_up(method, kept[0] if kept else None, _resend_wait(exc))
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
        retries = floods = timeouts = 0
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
                if timed_out(exc) and repeats_harm(method):
                    timeouts += 1
                    await self._timed_out(method, kept, exc, timeouts)
                    continue
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

    async def _timed_out(
        self,
        method: TelegramMethod[Any],
        kept: list[int],
        exc: TelegramNetworkError,
        timeouts: int,
    ) -> None:
        """Returns to try ``method`` once more here; raises otherwise: kept in the
        outbox (``ReplyTimedOut``), the outbox's own resend (it decides), or a second
        timeout."""
        deferred = self._deferred
        if deferred is not None and deferred.resending(method):
            raise exc
        if deferred is not None and deferred.keeps(method):
            row = await deferred.timed_out(method, kept[0] if kept else None)
            if row is not None:
                kept[:] = [row]
                logger.warning(
                    "telegram %s timed out; kept, sent once more from the outbox in %.0fs",
                    type(method).__name__,
                    TIMEOUT_RESEND_S,
                )
                raise ReplyTimedOut(method=method, message=exc.message) from exc
        if timeouts > 1:
            logger.error("telegram %s timed out twice: not sent again", type(method).__name__)
            raise exc
        logger.warning("telegram %s timed out; tried once more", type(method).__name__)
        await self._sleep(TIMEOUT_RESEND_S)


def _resend_wait(exc: BaseException) -> float:
    """How long the outbox waits before sending a call given up here."""
    if isinstance(exc, TelegramRetryAfter):
        return float(exc.retry_after)
    return TIMEOUT_RESEND_S if isinstance(exc, ReplyTimedOut) else 0.0
