"""Memory-service outbox, scheduled job runs, operator-locked expertise.

Revision ID: 0002_outbox_jobs
Revises: 0001_initial
Create Date: 2026-11-29 19:47:59.761392
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_outbox_jobs"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "job_runs",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("locked_by", sa.String(length=64), nullable=True),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_outcome", sa.String(length=16), nullable=True),
        sa.Column("last_detail", sa.String(length=256), nullable=True),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("job_id", name=op.f("pk_job_runs")),
    )
    op.create_table(
        "memory_outbox",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("fact_key", sa.String(length=128), nullable=False),
        sa.Column("operation", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=256), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_outbox")),
    )
    with op.batch_alter_table("memory_outbox", schema=None) as batch_op:
        batch_op.create_index("ix_memory_outbox_pending", ["sent_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_memory_outbox_user_id"), ["user_id"], unique=False)

    with op.batch_alter_table("user_profiles", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("expertise_locked", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("user_profiles", schema=None) as batch_op:
        batch_op.drop_column("expertise_locked")

    with op.batch_alter_table("memory_outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_outbox_user_id"))
        batch_op.drop_index("ix_memory_outbox_pending")

    op.drop_table("memory_outbox")
    op.drop_table("job_runs")
