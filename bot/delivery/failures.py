"""What a failed Telegram call was: a transient fault worth another try, a timeout
(sent once more from the outbox after ``TIMEOUT_RESEND_S``), or a reply kept for the
outbox. Shared by the retry middleware (bot/delivery/retry.py) and the outbox
(bot/delivery/deferred.py)."""

from __future__ import annotations

from typing import TypeGuard

from aiogram.exceptions import ClientDecodeError, TelegramNetworkError, TelegramServerError

__all__ = ["TIMEOUT_RESEND_S", "TRANSIENT", "ReplyTimedOut", "timed_out"]

TRANSIENT = (TelegramServerError, TelegramNetworkError, ClientDecodeError)
#: After a send timed out, the one more try waits this long.
TIMEOUT_RESEND_S = 5.0


class ReplyTimedOut(TelegramNetworkError):
    """A send timed out and is kept in the outbox, which sends it once more: the
    caller neither resends it nor answers the update again (bot/handlers/errors.py)."""


def timed_out(exc: BaseException) -> TypeGuard[TelegramNetworkError]:
    """aiogram's request timeout (its sessions raise a network error saying so)."""
    return isinstance(exc, TelegramNetworkError) and "timeout" in exc.message.lower()
