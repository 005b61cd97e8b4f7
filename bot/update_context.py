"""Which Telegram update the running task handles, for code far below the handler.

The inbox middleware (bot/inbox.py) sets it around each update's handler; the retry
middleware of the Bot API session (bot/telegram_retry.py) reads it when it keeps a
reply that waits out flood control, to mark that update done. A ContextVar is per
task: concurrent updates never see each other's.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

_UPDATE: ContextVar[int | None] = ContextVar("stepan_update_id", default=None)


def current_update() -> int | None:
    return _UPDATE.get()


def handling(update_id: int | None) -> Token[int | None]:
    """Set the current update; returns the token for :func:`done`."""
    return _UPDATE.set(update_id)


def done(token: Token[int | None]) -> None:
    _UPDATE.reset(token)
