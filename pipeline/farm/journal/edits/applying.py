"""What ✅ on an edit card and ↩️ do to the journal, in the press's transaction: the
entry changed, deleted, restored or set back, each as one revision applied once
(its unique ``source_key``: ``apply:<card>``, ``undo:<revision>``)."""

from __future__ import annotations

from datetime import datetime

from db.repositories import journal as repo
from db.states import RevisionKind
from db.uow import Session
from pipeline.farm.journal.edits.payload import EditOp, EditPayload

__all__ = ["apply_edit", "undo_press"]

_UNDO_KIND = {
    RevisionKind.WRITE: RevisionKind.DELETE,
    RevisionKind.DELETE: RevisionKind.RESTORE,
    RevisionKind.EDIT: RevisionKind.EDIT,
    RevisionKind.DONE: RevisionKind.EDIT,
}
_APPLIED_KIND = {EditOp.CHANGE: RevisionKind.EDIT, EditOp.DELETE: RevisionKind.DELETE,
                 EditOp.DONE: RevisionKind.DONE, EditOp.RESTORE: RevisionKind.RESTORE}  # fmt: skip


async def apply_edit(
    session: Session, edit: EditPayload, actor: str, draft_id: int, source: str, now: datetime
) -> bool:
    """The card's change, if the entry still holds what the card was shown with."""
    entry = await repo.entry(session, edit.operation_id, lock=True, include_deleted=True)
    restoring = edit.op is EditOp.RESTORE
    if entry is None or entry.deleted != restoring or entry.snapshot() != edit.before:
        return False
    kind = _APPLIED_KIND[edit.op]
    after = None if edit.op is EditOp.DELETE else edit.after
    before = None if restoring else edit.before
    recorded = await repo.add_revision(
        session, farm_id=entry.farm_id, operation_id=entry.id, kind=kind, actor=actor,
        before=before, after=after, source_key=f"apply:{draft_id}", draft_id=draft_id,
        source=source, created_at=now,
    )  # fmt: skip
    if recorded:
        if edit.op is EditOp.DELETE:
            await repo.set_deleted(session, entry.id, now)
        elif restoring:
            await repo.set_deleted(session, entry.id, None)
        else:
            await repo.change_entry(session, entry.id, edit.after)
    return recorded


async def undo_press(session: Session, draft_id: int, actor: str, now: datetime) -> int:
    """Everything the press on card ``draft_id`` changed, taken back; how many."""
    undone = 0
    for revision in reversed(await repo.revisions_of_draft(session, draft_id)):
        undone += await _take_back(session, revision, actor, now)
    return undone


async def _take_back(session: Session, revision: repo.Revision, actor: str, now: datetime) -> int:
    """Revision ``revision`` undone, once (1), or already undone (0)."""
    entry = await repo.entry(session, revision.operation_id, lock=True, include_deleted=True)
    if entry is None:
        return 0
    kind = _UNDO_KIND[revision.kind]
    recorded = await repo.add_revision(
        session, farm_id=entry.farm_id, operation_id=entry.id, kind=kind, actor=actor,
        before=None if entry.deleted else entry.values, after=revision.before,
        source_key=f"undo:{revision.id}", source="undo", created_at=now,
    )  # fmt: skip
    if not recorded:
        return 0
    if revision.kind is RevisionKind.WRITE:
        await repo.set_deleted(session, entry.id, now)
    elif revision.kind is RevisionKind.DELETE:
        await repo.set_deleted(session, entry.id, None)
    elif revision.before is not None:
        await repo.change_entry(session, entry.id, revision.before)
    return 1
