"""The trace id of the update being handled, and the log filter that prints it.

Kept apart from the aiogram middleware that sets it (bot/middlewares/trace.py) so the
command-line tools log in the same format without importing aiogram."""

from __future__ import annotations

import logging
import random
from contextvars import ContextVar

trace_id_var: ContextVar[str] = ContextVar("stepan_trace_id", default="-")


def new_trace_id() -> str:
    """16 hex digits: unique enough to find one update's lines, and not a secret, so
    the process's PRNG (seeded from the OS) serves, without a system call per update."""
    return f"{random.getrandbits(64):016x}"


class TraceLogFilter(logging.Filter):
    """Adds ``%(trace_id)s`` to every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = trace_id_var.get()
        return True
