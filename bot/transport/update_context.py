"""Which Telegram update the running task handles, for code far below the handler.

The inbox middleware (bot/transport/inbox.py) sets it around each update's handler; the retry
middleware of the Bot API session (bot/delivery/retry.py) reads it when it keeps a
reply that waits out flood control, to mark that update done. A ContextVar is per
task: concurrent updates never see each other's.

It also carries the update's :class:`Delivery`: how many parts of its reply a
previous try already got through to Telegram (skipped on this replay), and how to
record each part that goes through now (bot/delivery/render.py); and the :class:`Sending`
of the reply in progress: the Bot API calls of all its parts, so that a part meeting
flood control is kept in ``telegram_outbox`` together with the parts after it
(bot/delivery/deferred.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from aiogram.methods import TelegramMethod

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
    #: The update was marked done when a part of its reply was kept for flood
    #: control (bot/delivery/deferred.py): no replay will send what is left, the outbox does.
    deferred: bool = False


_DELIVERY: ContextVar[Delivery | None] = ContextVar("stepan_delivery", default=None)


@dataclass(slots=True)
class Sending:
    """One reply being sent part by part (bot/delivery/render.py)."""

    #: Every part's Bot API call, in order.
    calls: Sequence[TelegramMethod[Any]]
    #: The part in flight (an index into ``calls``).
    current: int = 0
    #: ``telegram_outbox`` rows of the parts kept while waiting out flood control,
    #: by index: the part that met it and the parts after it (bot/delivery/deferred.py).
    kept: dict[int, int] = field(default_factory=dict)

    def in_flight(self, method: TelegramMethod[Any]) -> bool:
        """Is ``method`` this reply's part in flight (not some other call)?"""
        return self.current < len(self.calls) and self.calls[self.current] is method


_SENDING: ContextVar[Sending | None] = ContextVar("stepan_sending", default=None)


def current_sending() -> Sending | None:
    return _SENDING.get()


def sending(reply: Sending | None) -> Token[Sending | None]:
    return _SENDING.set(reply)


def sent(token: Token[Sending | None]) -> None:
    _SENDING.reset(token)


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
