"""Initial schema: user and farm profiles, interactions.

Revision ID: 0001_initial
Revises: -
Create Date: 2026-11-29 19:35:03.946937
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "interactions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("intent", sa.String(length=32), nullable=False),
        sa.Column("crew", sa.JSON(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(length=128), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_interactions")),
    )
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_interactions_created_at"), ["created_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_interactions_trace_id"), ["trace_id"], unique=False)
        batch_op.create_index(
            "ix_interactions_user_created", ["user_id", "created_at"], unique=False
        )

    op.create_table(
        "user_profiles",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("agent", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=True),
        sa.Column("expertise_level", sa.String(length=16), nullable=False),
        sa.Column("preferred_language", sa.String(length=8), nullable=False),
        sa.Column("preferred_style", sa.String(length=16), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=True),
        sa.Column("interaction_count", sa.Integer(), nullable=False),
        sa.Column("known_intents", sa.JSON(), nullable=False),
        sa.Column("context_notes", sa.JSON(), nullable=False),
        sa.Column("farm_profile_ref", sa.String(length=96), nullable=True),
        sa.Column("recent_topics", sa.JSON(), nullable=False),
        sa.Column("operator", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_profiles")),
    )
    op.create_table(
        "farm_profiles",
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("farm_name", sa.String(length=128), nullable=True),
        sa.Column("field_ids", sa.JSON(), nullable=False),
        sa.Column("crop_ids", sa.JSON(), nullable=False),
        sa.Column("active_integrations", sa.JSON(), nullable=False),
        sa.Column("seasonal_context", sa.JSON(), nullable=False),
        sa.Column("iot_sensors", sa.JSON(), nullable=False),
        sa.Column("typical_intents", sa.JSON(), nullable=False),
        sa.Column("alert_thresholds", sa.JSON(), nullable=False),
        sa.Column("dict_pending_count", sa.Integer(), nullable=False),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_profiles.user_id"],
            name=op.f("fk_farm_profiles_user_id_user_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("farm_id", name=op.f("pk_farm_profiles")),
        sa.UniqueConstraint("user_id", name=op.f("uq_farm_profiles_user_id")),
    )


def downgrade() -> None:
    op.drop_table("farm_profiles")
    op.drop_table("user_profiles")
    with op.batch_alter_table("interactions", schema=None) as batch_op:
        batch_op.drop_index("ix_interactions_user_created")
        batch_op.drop_index(batch_op.f("ix_interactions_trace_id"))
        batch_op.drop_index(batch_op.f("ix_interactions_created_at"))

    op.drop_table("interactions")
