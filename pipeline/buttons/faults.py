"""Which failures are the store's: said as «база даних недоступна» (``faults.database``),
never as a button that no longer works (the bot's error handler, the operators'
buttons)."""

from __future__ import annotations

from db.errors import SQLAlchemyError
from pipeline.memory import StoreUnavailable

__all__ = ["is_database_error"]


def is_database_error(error: BaseException) -> bool:
    return isinstance(error, SQLAlchemyError | ConnectionRefusedError | StoreUnavailable) or (
        isinstance(error.__cause__, SQLAlchemyError)
    )
