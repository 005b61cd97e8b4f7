"""Stepan's user id of a Telegram user ("tg:<id>"), and back: spelled once, in
pipeline/admin/user_ids.py (the operators' services read the ids on their buttons
too); the bot's handlers, jobs and start-up hooks import it from here."""

from __future__ import annotations

from pipeline.admin.user_ids import PREFIX, stepan_user_id, telegram_id

__all__ = ["PREFIX", "stepan_user_id", "telegram_id"]
