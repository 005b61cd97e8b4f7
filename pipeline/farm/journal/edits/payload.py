"""An edit card's draft: which entry, what it was, what it becomes, kept in
``operation_drafts.payload`` beside the journal's own cards (``kind`` tells them apart)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["EDIT_KIND", "EditOp", "EditPayload", "is_edit"]

#: ``payload["kind"]`` of an edit card (a journal card has none).
EDIT_KIND = "edit"


class EditOp(StrEnum):
    CHANGE = "change"
    DELETE = "delete"
    DONE = "done"
    #: A deleted entry put back (an operator's ♻️).
    RESTORE = "restore"
    #: Not a change: the entry the farmer opened, which the next correction is about.
    FOCUS = "focus"


class EditPayload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: str = EDIT_KIND
    op: EditOp
    operation_id: int
    #: The entry's values when the card was shown (``db.repositories.journal.snapshot``).
    before: dict[str, Any]
    #: What ✅ makes them (the same as ``before`` for a delete).
    after: dict[str, Any]
    #: The columns that change, in the order the card lists them.
    changed: tuple[str, ...] = ()

    def to_payload(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def is_edit(payload: Mapping[str, Any]) -> bool:
    return payload.get("kind") == EDIT_KIND
