"""The trace id of the update being handled, and the log filter that prints it.

Kept apart from the aiogram middleware that sets it (bot/middlewares/trace.py) so the
command-line tools log in the same format without importing aiogram."""

from __future__ import annotations

import logging
import uuid
from contextvars import ContextVar

trace_id_var: ContextVar[str] = ContextVar("stepan_trace_id", default="-")


def new_trace_id() -> str:
    return uuid.uuid4().hex[:16]


class TraceLogFilter(logging.Filter):
    """Adds ``%(trace_id)s`` to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = trace_id_var.get()
        return True
