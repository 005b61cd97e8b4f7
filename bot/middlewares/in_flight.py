"""Counts updates being handled, so shutdown can wait for them.

aiogram stops polling on SIGTERM but does not wait for the handler tasks it already
started; their updates were confirmed to Telegram (getUpdates offset), so an update
dropped here is lost for good. Registered first, this middleware sees every update.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject

logger = logging.getLogger(__name__)


class InFlightMiddleware(BaseMiddleware):
    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def count(self) -> int:
        return self._count

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        self._count += 1
        self._idle.clear()
        try:
            return await handler(event, data)
        finally:
            self._count -= 1
            if self._count == 0:
                self._idle.set()

    async def wait_idle(self, grace_s: float) -> bool:
        """True when every update in flight finished within ``grace_s`` seconds."""
        # Tasks created by the last getUpdates may not have started yet: let them.
        for _ in range(3):
            await asyncio.sleep(0)
        try:
            await asyncio.wait_for(self._idle.wait(), grace_s)
            return True
        except TimeoutError:
            logger.warning("shutdown: %d updates still in flight after %ss", self._count, grace_s)
            return False
