"""The agronomist desk: questions the knowledge base was unsure of, for the operators.

Revision ID: 0013_agronomist_questions
Revises: 0012_alert_episodes
Create Date: 2026-12-01 10:15:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_agronomist_questions"
down_revision: str | None = "0012_alert_episodes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agronomist_questions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("card", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answered_by", sa.BigInteger(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_agronomist_questions_status",
        "agronomist_questions",
        ["status", "created_at"],
    )
    op.create_index("ix_agronomist_questions_user_id", "agronomist_questions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_agronomist_questions_user_id", table_name="agronomist_questions")
    op.drop_index("ix_agronomist_questions_status", table_name="agronomist_questions")
    op.drop_table("agronomist_questions")
