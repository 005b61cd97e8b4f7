"""Stepan's user id of a Telegram user ("tg:<id>"), and back: the one place the
format is spelled, for handlers, jobs and start-up hooks alike."""

from __future__ import annotations

from pipeline.admin.edits import parse_target

PREFIX = "tg:"


def stepan_user_id(telegram_id: int) -> str:
    return f"{PREFIX}{telegram_id}"


def telegram_id(user_id: str | None) -> int | None:
    """The Telegram id (the private chat) of a Stepan user id; None for any other id."""
    if not user_id or not user_id.startswith(PREFIX):
        return None
    return parse_target(user_id.removeprefix(PREFIX))
