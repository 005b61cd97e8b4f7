"""A trace id per update: in logs and interactions, never shown to a farmer."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject

trace_id_var: ContextVar[str] = ContextVar("stepan_trace_id", default="-")


def new_trace_id() -> str:
    return uuid.uuid4().hex[:16]


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


class TraceLogFilter(logging.Filter):
    """Adds ``%(trace_id)s`` to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = trace_id_var.get()
        return True
