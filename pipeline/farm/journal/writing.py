"""What ✅ does to the database: a confirmed operation's unknown names go to the
operators' review, and the operation becomes journal rows, one per field, exactly
once; and what a new card or a press compares with to find a repeat."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from db.models import OperationDraftRow
from db.repositories import farm as repo
from db.repositories import journal as journal_repo
from db.states import RevisionKind
from db.uow import Session
from pipeline.farm.journal import duplicates
from pipeline.farm.journal.draft import DraftOperation, JournalDraft
from pipeline.farm.journal.edits.payload import is_edit

logger = logging.getLogger(__name__)


async def recent_signatures(
    session: Session, user_id: str, now: datetime, *, drafts: bool = True
) -> set[duplicates.Signature]:
    """Signatures of what this user wrote (and, with ``drafts``, put on a card)
    within the duplicate window."""
    since = now.astimezone(UTC) - duplicates.WINDOW
    seen = {
        duplicates.signature(row, row.field_id)
        for row in await repo.recent_operations(session, user_id, since)
    }
    if drafts:
        for row in await repo.recent_drafts(session, user_id, since):
            if is_edit(row.payload):
                continue  # an edit card repeats nothing
            try:
                draft = JournalDraft.from_payload(row.payload)
            except ValueError:
                # A card nobody can press (an unknown schema) repeats nothing.
                logger.warning("draft %s: payload not readable, left out", row.id)
                continue
            for operation in draft.operations:
                seen |= duplicates.signatures(operation)
    return seen


async def note_terms(
    session: Session, farm_id: str, operation: DraftOperation
) -> tuple[DraftOperation, bool]:
    """The confirmed operation's unknown names go to the operators' review now: the
    operation with their term ids, and whether any was noted."""
    pending = dict(operation.pending)
    noted = False
    for key, term_id in operation.pending.items():
        if term_id:
            continue  # a card of an older version noted it when it was shown
        kind, _, term = key.partition(":")
        row = await repo.note_pending_term(session, farm_id, kind, term, operation.message)
        pending[key], noted = row.id, True
    return operation.with_pending(pending), noted


async def write_operation(
    session: Session,
    draft: OperationDraftRow,
    index: int,
    operation: DraftOperation,
    now: datetime,
) -> int:
    """Operation ``index`` of the card as journal rows; how many were new."""
    pending_term = next(iter(operation.pending.values()), None)
    message = draft.source_message_id or f"draft{draft.id}"
    written = 0
    for field_id in operation.target_fields():
        values = operation.row_values()
        # Unique per message, operation and field: a redelivered update, a second
        # card of the same message or a second tap writes nothing more.
        source = f"{draft.chat_id}:{message}:{index}:{field_id or '-'}"
        values.update(
            farm_id=draft.farm_id,
            field_id=field_id,
            op_date=operation.op_date,
            source_chat_id=draft.chat_id,
            source_message_id=draft.source_message_id,
            source_key=source[:96],
            author=draft.user_id,
            pending_term_id=pending_term,
            created_at=now,
        )
        if await repo.insert_operation(session, values):
            written += 1
            await _keep_write(session, draft, values)
    return written


async def _keep_write(
    session: Session, draft: OperationDraftRow, values: dict[str, object]
) -> None:
    """The write as the entry's first revision (↩️ under the card takes it back)."""
    entry = await journal_repo.entry_by_source(session, str(values["source_key"]))
    if entry is None:
        return
    source = f"{draft.chat_id}:{draft.source_message_id}"
    await journal_repo.add_revision(
        session, farm_id=entry.farm_id, operation_id=entry.id, kind=RevisionKind.WRITE,
        actor=draft.user_id, before=None, after=entry.values,
        source_key=f"write:{entry.id}", draft_id=draft.id, source=source,
        created_at=values.get("created_at"),  # type: ignore[arg-type]
    )  # fmt: skip
