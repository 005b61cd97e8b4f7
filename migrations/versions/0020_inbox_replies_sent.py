"""A reply in several parts remembers how many Telegram took: a replay after a
crash in the middle sends only the rest (bot/transport/inbox.py, bot/delivery/render.py).

Revision ID: 0020_inbox_replies_sent
Revises: 0019_phase_lock
Create Date: 2026-12-01 15:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_inbox_replies_sent"
down_revision: str | None = "0019_phase_lock"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN with a constant default: in place on SQLite and PostgreSQL.
    op.add_column(
        "update_inbox",
        sa.Column("replies_sent", sa.Integer(), server_default="0", nullable=False),
    )


def downgrade() -> None:
    op.drop_column("update_inbox", "replies_sent")
