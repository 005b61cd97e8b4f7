"""Services only one branch of the router tree uses, handed to its handlers alone.

aiogram copies an update's data (the dispatcher's workflow data and what middlewares
add) at every router and every handler check it passes, so each service in the
dispatcher's workflow data costs every update, a farmer's «дякую» included. The
operators' services (term review, sensors, /status, /stats, /rules...) are given to
the operators' branch instead, by this inner middleware: it runs only once a handler
there matched, and the handler declares them by name as before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject


class ServicesMiddleware(BaseMiddleware):
    def __init__(self, services: Mapping[str, object]) -> None:
        self._services = dict(services)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        data.update(self._services)
        return await handler(event, data)
