"""One journal card per Telegram message (issue 26 point 5): a unique index on
``operation_drafts (chat_id, source_message_id)`` where the message id is known.

``Journal.propose`` writes the card in its own transaction, before the update's
handling ends; a process killed in between had the redelivered update write a second
card for the same message. With the index the second insert does nothing and the
journal shows the card it already has (db/repositories/farm.py ``add_draft``).

Cards written twice before this revision are merged first: the lowest id of each
(chat, message) is kept, the later copies are deleted (nothing points at a card:
journal rows carry their source message in ``source_key``, not the card's id).

Revision ID: 0026_one_draft_per_message
Revises: 0025_journal_revisions
Create Date: 2026-12-02 16:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_one_draft_per_message"
down_revision: str | None = "0025_journal_revisions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MESSAGE_KNOWN = "source_message_id IS NOT NULL"


def upgrade() -> None:
    op.execute(
        "DELETE FROM operation_drafts WHERE source_message_id IS NOT NULL AND id > ("
        "SELECT MIN(kept.id) FROM operation_drafts AS kept "
        "WHERE kept.chat_id = operation_drafts.chat_id "
        "AND kept.source_message_id = operation_drafts.source_message_id)"
    )
    op.create_index(
        "ux_operation_drafts_message",
        "operation_drafts",
        ["chat_id", "source_message_id"],
        unique=True,
        sqlite_where=sa.text(MESSAGE_KNOWN),
        postgresql_where=sa.text(MESSAGE_KNOWN),
    )


def downgrade() -> None:
    op.drop_index("ux_operation_drafts_message", table_name="operation_drafts")
