"""A trace id per update: in logs and interactions, never shown to a farmer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject

from bot.tracing import TraceLogFilter, new_trace_id, trace_id_var

__all__ = ["TraceLogFilter", "TraceMiddleware", "new_trace_id", "trace_id_var"]


class TraceMiddleware(BaseMiddleware):
    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        trace_id = new_trace_id()
        token = trace_id_var.set(trace_id)
        data["trace_id"] = trace_id
        try:
            return await handler(event, data)
        finally:
            trace_id_var.reset(token)
