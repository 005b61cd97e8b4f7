"""Quality statistics from indexes: interactions.crew_size (backfilled) and two
indexes that let /stats read the period's counts and latency percentiles without
touching the table (docs/learning.md, bench/stats.py).

Revision ID: 0010_stats_indexes
Revises: 0009_job_slots
Create Date: 2026-12-06 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_stats_indexes"
down_revision: str | None = "0009_job_slots"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("crew_size", sa.Integer(), nullable=True))
    op.execute("UPDATE interactions SET crew_size = json_array_length(crew) WHERE crew IS NOT NULL")
    op.create_index(
        "ix_interactions_stats",
        "interactions",
        ["created_at", "mode", "eval_warnings", "crew_size"],
        unique=False,
    )
    op.create_index(
        "ix_interactions_latency",
        "interactions",
        ["mode", "latency_ms", "created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_interactions_latency", table_name="interactions")
    op.drop_index("ix_interactions_stats", table_name="interactions")
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.drop_column("crew_size")
