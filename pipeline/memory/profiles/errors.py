"""The one failure the profile services report by raising."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """The profile store failed: whoever asked is told the database is unavailable,
    never "no such user" and never defaults shown as data (bot/handlers/errors.py
    answers it)."""
