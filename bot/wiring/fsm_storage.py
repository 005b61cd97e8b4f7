"""FSM state (onboarding's step) in Redis, degrading to memory while Redis is gone.

With several instances the state lives in Redis (aiogram's RedisStorage). Redis
going away must not take the bot with it: aiogram reads the state for every update,
so every message would fail. Instead each call that Redis refuses is served from
this process's memory, a warning says so (once per outage, then once a minute), and
Redis is used again as soon as it answers. What degrades is only this: while Redis
is down, an onboarding step begun on one instance is not seen by another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, TypeVar

from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StateType, StorageKey
from aiogram.fsm.storage.memory import MemoryStorage, SimpleEventIsolation

logger = logging.getLogger(__name__)

T = TypeVar("T")
#: A repeated warning during one long outage, at most this often.
WARN_EVERY_S = 60.0


class FallbackStorage(BaseStorage):
    def __init__(
        self,
        primary: BaseStorage,
        *,
        errors: tuple[type[BaseException], ...] = (OSError, TimeoutError),
    ) -> None:
        self.primary = primary
        self.fallback = MemoryStorage()
        self.errors = errors
        self.degraded = False
        self._warned_at = 0.0

    async def _call(
        self, primary: Callable[[], Awaitable[T]], fallback: Callable[[], Awaitable[T]]
    ) -> T:
        try:
            result = await primary()
        except self.errors as exc:
            now = time.monotonic()
            if not self.degraded or now - self._warned_at >= WARN_EVERY_S:
                logger.warning(
                    "FSM storage unreachable (%s: %s): keeping state in memory until it is back",
                    type(exc).__name__,
                    exc,
                )
                self._warned_at = now
            self.degraded = True
            return await fallback()
        if self.degraded:
            logger.warning("FSM storage is back")
            self.degraded = False
        return result

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        await self._call(
            lambda: self.primary.set_state(key, state), lambda: self.fallback.set_state(key, state)
        )

    async def get_state(self, key: StorageKey) -> str | None:
        return await self._call(
            lambda: self.primary.get_state(key), lambda: self.fallback.get_state(key)
        )

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        await self._call(
            lambda: self.primary.set_data(key, data), lambda: self.fallback.set_data(key, data)
        )

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        return await self._call(
            lambda: self.primary.get_data(key), lambda: self.fallback.get_data(key)
        )

    async def close(self) -> None:
        try:
            await self.primary.close()
        finally:
            await self.fallback.close()


class FallbackIsolation(BaseEventIsolation):
    """One user's updates one at a time across instances (a Redis lock), degrading to
    this process's own lock while Redis is gone, like FallbackStorage."""

    def __init__(
        self,
        primary: BaseEventIsolation,
        *,
        errors: tuple[type[BaseException], ...] = (OSError, TimeoutError),
    ) -> None:
        self.primary = primary
        self.fallback = SimpleEventIsolation()
        self._errors = errors

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        async with AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(self.primary.lock(key))
            except self._errors as exc:
                logger.warning(
                    "event isolation lock unreachable (%s): this instance's own lock meanwhile",
                    type(exc).__name__,
                )
                await stack.enter_async_context(self.fallback.lock(key))
            yield

    async def close(self) -> None:
        try:
            await self.primary.close()
        finally:
            await self.fallback.close()


class RenewingRedisIsolation(BaseEventIsolation):
    """aiogram's RedisEventIsolation with a lock a dead holder loses within ``ttl``.

    A fixed lock timeout must outlast the longest update (a deep reply: minutes), so
    an instance killed while handling a user's update (SIGKILL, OOM) left that user's
    lock standing that long, and every other instance held all of the user's updates
    behind it, the replay of the dead instance's own included. Here the lock lives
    ``ttl`` seconds (the inbox lease: the dead instance's updates come back as soon)
    and is extended every third of it while its update runs."""

    def __init__(self, redis: Any, ttl: float, key_builder: Any = None) -> None:
        from aiogram.fsm.storage.base import DefaultKeyBuilder

        self.redis = redis
        self.ttl = ttl
        self.key_builder = key_builder or DefaultKeyBuilder()

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        lock = self.redis.lock(name=self.key_builder.build(key, "lock"), timeout=self.ttl)
        await lock.acquire()  # waits while a live holder renews it
        renewal = asyncio.create_task(self._renew(lock))
        try:
            yield
        finally:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal
            try:
                await lock.release()
            except Exception as exc:  # expired meanwhile (Redis was gone): nothing to free
                logger.warning("event isolation lock not released (%s)", type(exc).__name__)

    async def _renew(self, lock: Any) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await lock.extend(self.ttl, replace_ttl=True)
            except Exception as exc:  # Redis gone for a moment: tried again next time
                logger.warning("event isolation lock not extended (%s)", type(exc).__name__)

    async def close(self) -> None:
        pass


__all__ = ["FallbackIsolation", "FallbackStorage", "RenewingRedisIsolation"]
