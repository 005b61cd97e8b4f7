"""The update inbox (exactly once per Telegram update) and interactions.update_id.

Revision ID: 0008_update_inbox
Revises: 0007_memory_safety
Create Date: 2026-12-03 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_update_inbox"
down_revision: str | None = "0007_memory_safety"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "update_inbox",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("payload", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("update_id", name=op.f("pk_update_inbox")),
    )
    with op.batch_alter_table("update_inbox", schema=None) as batch_op:
        batch_op.create_index("ix_update_inbox_status_update", ["status", "update_id"])
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("update_id", sa.BigInteger(), nullable=True))
        batch_op.create_index(batch_op.f("ix_interactions_update_id"), ["update_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_interactions_update_id"))
        batch_op.drop_column("update_id")
    with op.batch_alter_table("update_inbox", schema=None) as batch_op:
        batch_op.drop_index("ix_update_inbox_status_update")
    op.drop_table("update_inbox")
