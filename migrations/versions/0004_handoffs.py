"""Handoff decisions: questions offered to peer agents and contracts served for them.

Revision ID: 0004_handoffs
Revises: 0003_farm_data
Create Date: 2026-12-01 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_handoffs"
down_revision: str | None = "0003_farm_data"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "handoffs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("direction", sa.String(length=3), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("peer", sa.String(length=32), nullable=False),
        sa.Column("domain", sa.String(length=32), nullable=False),
        sa.Column("partial", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("question", sa.Text(), nullable=True),
        sa.Column("consent", sa.Boolean(), nullable=True),
        sa.Column("sent", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.Column("privacy_level", sa.String(length=16), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_handoffs")),
    )
    with op.batch_alter_table("handoffs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_handoffs_direction_created", ["direction", "created_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_handoffs_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("handoffs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_handoffs_user_id"))
        batch_op.drop_index("ix_handoffs_direction_created")
    op.drop_table("handoffs")
