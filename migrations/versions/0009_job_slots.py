"""Job slots: each scheduled run claims its trigger time once across instances.

Revision ID: 0009_job_slots
Revises: 0008_update_inbox
Create Date: 2026-12-03 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_job_slots"
down_revision: str | None = "0008_update_inbox"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "job_slots",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("slot_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("job_id", "slot_at", name=op.f("pk_job_slots")),
    )


def downgrade() -> None:
    op.drop_table("job_slots")
