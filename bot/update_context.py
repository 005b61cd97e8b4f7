"""Which Telegram update the running task handles, for code far below the handler.

The inbox middleware (bot/inbox.py) sets it around each update's handler; the retry
middleware of the Bot API session (bot/telegram_retry.py) reads it when it keeps a
reply that waits out flood control, to mark that update done. A ContextVar is per
task: concurrent updates never see each other's.

It also carries the update's :class:`Delivery`: how many parts of its reply a
previous try already got through to Telegram (skipped on this replay), and how to
record each part that goes through now (bot/render.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass

_UPDATE: ContextVar[int | None] = ContextVar("stepan_update_id", default=None)


@dataclass(slots=True)
class Delivery:
    """The parts of one update's reply, counted across every ``send_reply`` of it."""

    #: Parts a previous try got through (this replay skips them).
    skip: int
    #: Stores "``n`` parts went through" for the next try; never raises.
    record: Callable[[int], Awaitable[None]]
    #: Parts of this update's reply met so far (sent or skipped).
    position: int = 0


_DELIVERY: ContextVar[Delivery | None] = ContextVar("stepan_delivery", default=None)


def current_delivery() -> Delivery | None:
    return _DELIVERY.get()


def delivering(delivery: Delivery | None) -> Token[Delivery | None]:
    return _DELIVERY.set(delivery)


def delivered(token: Token[Delivery | None]) -> None:
    _DELIVERY.reset(token)


def current_update() -> int | None:
    return _UPDATE.get()


def handling(update_id: int | None) -> Token[int | None]:
    """Set the current update; returns the token for :func:`done`."""
    return _UPDATE.set(update_id)


def done(token: Token[int | None]) -> None:
    _UPDATE.reset(token)
