"""Stepan's user id of a Telegram user ("tg:<id>"), and back: the one place the
format is spelled, for handlers, jobs, start-up hooks and the operators' services
alike (bot/user_ids.py re-exports it for the bot)."""

from __future__ import annotations

from pipeline.admin.edits import parse_target

__all__ = ["PREFIX", "stepan_user_id", "telegram_id"]

PREFIX = "tg:"


def stepan_user_id(telegram_id: int) -> str:
    return f"{PREFIX}{telegram_id}"


def telegram_id(user_id: str | None) -> int | None:
    """The Telegram id (the private chat) of a Stepan user id; None for any other id."""
    if not user_id or not user_id.startswith(PREFIX):
        return None
    return parse_target(user_id.removeprefix(PREFIX))
