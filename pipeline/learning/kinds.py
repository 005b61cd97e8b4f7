"""The kinds of feedback, as types (the buttons' callback data carries them). Stored
in ``feedback.verdict`` and ``feedback.reason``, so defined with the other closed sets
of column values in db/states.py."""

from __future__ import annotations

from db.states import FeedbackReason, FeedbackVerdict

__all__ = ["FeedbackReason", "FeedbackVerdict"]
