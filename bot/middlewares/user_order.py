"""One user's updates are handled one at a time, in the order they arrived.

aiogram handles updates as concurrent tasks; without this, "запиши полив" and its
correction could be processed out of order. Different users never wait for each
other. Locks are dropped once nobody holds or waits for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject, User


class _Slot:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class UserOrderMiddleware(BaseMiddleware):
    def __init__(self) -> None:
        self._slots: dict[int, _Slot] = {}

    @property
    def active_users(self) -> int:
        return len(self._slots)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        user: User | None = data.get("event_from_user")
        if user is None:
            return await handler(event, data)
        slot = self._slots.get(user.id)
        if slot is None:
            slot = self._slots[user.id] = _Slot()
        slot.users += 1
        try:
            async with slot.lock:
                return await handler(event, data)
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[user.id]
