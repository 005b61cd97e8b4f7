"""Memory-service safety: outbox row states (dead letters, configuration errors), the
merge marker on profiles made while the service's copy was unknown, /forget tombstones.

Revision ID: 0007_memory_safety
Revises: 0006_journal_amounts
Create Date: 2026-12-05 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_memory_safety"
down_revision: str | None = "0006_journal_amounts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("memory_outbox", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("state", sa.String(length=16), server_default="pending", nullable=False)
        )
    with op.batch_alter_table("user_profiles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("remote_merge", sa.JSON(), nullable=True))
    op.create_table(
        "memory_tombstones",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("forgotten_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_memory_tombstones")),
    )


def downgrade() -> None:
    op.drop_table("memory_tombstones")
    # DROP COLUMN in place, not batch mode: re-creating user_profiles on SQLite
    # would cascade-delete every farm and its children (see 0011_farm_region).
    op.drop_column("user_profiles", "remote_merge")
    with op.batch_alter_table("memory_outbox", schema=None) as batch_op:
        batch_op.drop_column("state")
