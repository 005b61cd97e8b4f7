"""Conversation memory: remembered answers for the section-9 shortcuts and the
rolling window of conversation summaries (issue 11, points 4 and 5).

Revision ID: 0015_conversation_memory
Revises: 0014_sensor_hours
Create Date: 2026-12-01 11:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_conversation_memory"
down_revision: str | None = "0014_sensor_hours"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "answer_cache",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.String(length=16), nullable=False),
        sa.Column("intent", sa.String(length=32), nullable=False),
        sa.Column("subject", sa.String(length=512), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "slot"),
    )
    op.create_table(
        "conversation_summaries",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("key", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("period_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("period_end", sa.DateTime(timezone=True), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("intents", sa.JSON(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_index(
        "ix_conversation_summaries_user_end",
        "conversation_summaries",
        ["user_id", "period_end"],
    )


def downgrade() -> None:
    op.drop_index("ix_conversation_summaries_user_end", table_name="conversation_summaries")
    op.drop_table("conversation_summaries")
    op.drop_table("answer_cache")
