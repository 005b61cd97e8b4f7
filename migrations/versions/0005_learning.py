"""Learning from mistakes: eval results per interaction, feedback, learnings,
corrections, the routing-rules overlay and the nightly proposals (docs/learning.md).

Revision ID: 0005_learning
Revises: 0004_handoffs
Create Date: 2026-12-03 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_learning"
down_revision: str | None = "0004_handoffs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _created() -> sa.Column[sa.DateTime]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("eval_warnings", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("eval_infos", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("eval_failed", sa.JSON(), nullable=True))
    op.create_table(
        "feedback",
        sa.Column("id", _ID, nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=True),
        sa.Column("intent", sa.String(length=32), nullable=True),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feedback")),
        sa.UniqueConstraint("trace_id", "user_id", name="uq_feedback_trace_user"),
    )
    op.create_index("ix_feedback_created", "feedback", ["created_at"], unique=False)
    op.create_table(
        "learnings",
        sa.Column("id", _ID, nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("intent", sa.String(length=32), nullable=True),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=True),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learnings")),
    )
    op.create_index(op.f("ix_learnings_created_at"), "learnings", ["created_at"], unique=False)
    op.create_table(
        "corrections",
        sa.Column("id", _ID, nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("was_mode", sa.String(length=8), nullable=False),
        sa.Column("was_intent", sa.String(length=32), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("intent", sa.String(length=32), nullable=False),
        sa.Column("crew", sa.JSON(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_corrections")),
        sa.UniqueConstraint("trace_id", name=op.f("uq_corrections_trace_id")),
    )
    op.create_index(op.f("ix_corrections_created_at"), "corrections", ["created_at"], unique=False)
    op.create_table(
        "rule_overlays",
        sa.Column("id", _ID, nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("proposal_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("rolled_back", sa.Boolean(), server_default=sa.false(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rule_overlays")),
    )
    op.create_table(
        "rule_proposals",
        sa.Column("id", _ID, nullable=False),
        sa.Column("intent", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("term", sa.String(length=128), nullable=False),
        sa.Column("support", sa.Integer(), nullable=False),
        sa.Column("dev_before", sa.Float(), nullable=False),
        sa.Column("dev_after", sa.Float(), nullable=False),
        sa.Column("corrections_before", sa.Float(), nullable=False),
        sa.Column("corrections_after", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        _created(),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rule_proposals")),
    )
    op.create_index(
        op.f("ix_rule_proposals_created_at"), "rule_proposals", ["created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_rule_proposals_created_at"), table_name="rule_proposals")
    op.drop_table("rule_proposals")
    op.drop_table("rule_overlays")
    op.drop_index(op.f("ix_corrections_created_at"), table_name="corrections")
    op.drop_table("corrections")
    op.drop_index(op.f("ix_learnings_created_at"), table_name="learnings")
    op.drop_table("learnings")
    op.drop_index("ix_feedback_created", table_name="feedback")
    op.drop_table("feedback")
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.drop_column("eval_failed")
        batch_op.drop_column("eval_infos")
        batch_op.drop_column("eval_warnings")
