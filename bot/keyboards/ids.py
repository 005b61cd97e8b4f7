"""Integers in callback data, bounded: a client can send any digits, and a number too
large for the database ("Python int too large to convert to SQLite INTEGER", an
int4 overflow on PostgreSQL) used to leave the button spinning with no answer.
Out of range, the data matches no CallbackData class and gets the "expired" answer."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from pipeline.admin.edits import MAX_ROW_ID, MAX_TELEGRAM_ID

TelegramId = Annotated[int, Field(ge=-MAX_TELEGRAM_ID, le=MAX_TELEGRAM_ID)]
RowId = Annotated[int, Field(ge=1, le=MAX_ROW_ID)]
