"""Per-user throttling: a token bucket per Telegram user, in Redis with several
instances (so a flood spread over them is counted once), in memory with one.

A user may send ``capacity`` messages at once and then ``rate`` a second. Past that,
updates are dropped (and marked done in the inbox), and the user is told once per
flood, politely, to slow down; the next update let through re-arms the warning.
Other users have their own buckets and never notice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aiogram import BaseMiddleware, Bot
from aiogram.types import CallbackQuery, Message, TelegramObject, Update, User

from bot.middlewares.language import spoken_texts, telegram_texts
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog

logger = logging.getLogger(__name__)

#: Burst a user may send at once, and tokens regained per second.
DEFAULT_CAPACITY = 30
DEFAULT_RATE = 1.0


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    #: The first refusal of a flood: tell the user (once).
    warn: bool = False


class Bucket(Protocol):
    async def take(self, user_id: int) -> Verdict: ...


class MemoryBucket:
    """One process's buckets (a single instance)."""

    def __init__(
        self,
        capacity: int = DEFAULT_CAPACITY,
        rate: float = DEFAULT_RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._capacity = capacity
        self._rate = rate
        self._clock = clock
        #: user -> (tokens, at, warned)
        self._state: dict[int, tuple[float, float, bool]] = {}

    async def take(self, user_id: int) -> Verdict:
        now = self._clock()
        tokens, at, warned = self._state.get(user_id, (float(self._capacity), now, False))
        tokens = min(float(self._capacity), tokens + (now - at) * self._rate)
        if tokens >= 1:
            self._state[user_id] = (tokens - 1, now, False)
            if len(self._state) > 100_000:  # forget full buckets of the quiet ones
                self._prune(now)
            return Verdict(True)
        self._state[user_id] = (tokens, now, True)
        return Verdict(False, warn=not warned)

    def _prune(self, now: float) -> None:
        full = self._capacity / self._rate
        self._state = {u: s for u, s in self._state.items() if now - s[1] < full}


#: KEYS[1] the user's bucket; ARGV: capacity, rate. Returns {allowed, warn}.
#: Atomic in Redis: instances sharing a user's bucket never both take its last token.
#: The clock is Redis's own TIME, read in the script: one round trip per update.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'warned')
local capacity, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local tokens = tonumber(b[1]) or capacity
local at = tonumber(b[2]) or now
local warned = b[3] == '1'
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed, warn = 0, 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
  warned = false
elseif not warned then
  warn = 1
  warned = true
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'at', now, 'warned', warned and '1' or '0')
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) + 1)
return {allowed, warn}
"""


class RedisBucket:
    """Buckets shared by every instance, in Redis (the clock is Redis's own TIME,
    so instances with skewed clocks agree)."""

    def __init__(
        self,
        redis: Any,
        capacity: int = DEFAULT_CAPACITY,
        rate: float = DEFAULT_RATE,
        prefix: str = "stepan:throttle",
    ) -> None:
        self._redis = redis
        self._capacity = capacity
        self._rate = rate
        self._prefix = prefix
        self._script = redis.register_script(_TAKE)

    async def take(self, user_id: int) -> Verdict:
        allowed, warn = await self._script(
            keys=[f"{self._prefix}:{user_id}"], args=[self._capacity, self._rate]
        )
        return Verdict(bool(int(allowed)), warn=bool(int(warn)))


class ThrottleMiddleware(BaseMiddleware):
    """Outer update middleware, after the inbox: a dropped update is still done."""

    def __init__(self, bucket: Bucket, catalog: Catalog) -> None:
        self._bucket = bucket
        self._catalog = catalog

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user: User | None = data.get("event_from_user")
        if user is None or not isinstance(event, Update):
            return await handler(event, data)
        try:
            verdict = await self._bucket.take(user.id)
        except Exception:
            # Redis gone: serve rather than refuse everyone.
            logger.warning("throttle: bucket unavailable, letting the update through")
            return await handler(event, data)
        if verdict.allowed:
            return await handler(event, data)
        logger.info("throttle: update %s of user %s dropped", event.update_id, user.id)
        if verdict.warn:
            await self._warn(data["bot"], event, user, data.get("pipeline"))
        return None

    async def _warn(self, bot: Bot, update: Update, user: User, pipeline: Pipeline | None) -> None:
        # Once per flood: the user's language as their other replies have it.
        texts = (
            await spoken_texts(pipeline, user)
            if pipeline is not None
            else telegram_texts(self._catalog, user)
        )
        text = texts.text("throttle.slow_down")
        try:
            if isinstance(update.callback_query, CallbackQuery):
                await bot.answer_callback_query(update.callback_query.id, text=text)
            elif isinstance(update.message, Message):
                await bot.send_message(update.message.chat.id, text)
        except Exception:
            logger.warning("throttle: the slow-down note was not delivered", exc_info=True)
