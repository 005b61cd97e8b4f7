"""The journal's drafts as a use case changes them: a card cancelled, a card's
operations stored after a press (the draft row is the one ``farm.draft`` locked)."""

from __future__ import annotations

from typing import Any

from db.models import OperationDraftRow
from db.states import DraftStatus


def cancel_draft(row: OperationDraftRow) -> None:
    """The card is closed unwritten; the change is flushed with the transaction."""
    row.status = DraftStatus.CANCELLED


def keep_draft(row: OperationDraftRow, payload: dict[str, Any], *, written: bool) -> None:
    """The card's operations as they are now; ``written`` once every one of them is."""
    row.payload = payload  # a new object: the JSON column sees the change
    if written:
        row.status = DraftStatus.WRITTEN
