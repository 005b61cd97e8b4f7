"""A reply whose send timed out is sent once more, never again (issue 29 point 4):
``telegram_outbox.timed_out`` marks a row whose send (in memory or from the outbox)
timed out once, when Telegram may have taken it; a second timeout ends its resends.

Revision ID: 0032_outbox_timed_out
Revises: 0028_operation_weather
Create Date: 2026-12-02 20:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032_outbox_timed_out"
down_revision: str | None = "0028_operation_weather"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A NOT NULL column with a constant default: in place on SQLite and PostgreSQL.
    op.add_column(
        "telegram_outbox",
        sa.Column("timed_out", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("telegram_outbox") as batch:
        batch.drop_column("timed_out")
