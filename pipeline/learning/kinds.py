"""The kinds of feedback, as types (the buttons' callback data carries them)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["FeedbackReason", "FeedbackVerdict"]


class FeedbackVerdict(StrEnum):
    UP = "up"
    DOWN = "down"
    FIX = "fix"


class FeedbackReason(StrEnum):
    """👎's follow-up «що не так?»."""

    WRONG = "wrong"
    NOT_ASKED = "not_asked"
    TOO_LONG = "too_long"
    LANGUAGE = "language"
