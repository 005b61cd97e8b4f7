"""The farm's data: fields, crops, dictionary, pending terms, drafts, operations,
sensors, alerts, reading tokens.

Revision ID: 0003_farm_data
Revises: 0002_outbox_jobs
Create Date: 2026-11-29 19:55:38.374856
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_farm_data"
down_revision: str | None = "0002_outbox_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("field_id", sa.String(length=64), nullable=True),
        sa.Column("sensor_type", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("notified_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_alerts_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alerts")),
    )
    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_alerts_open", ["farm_id", "sensor_type", "field_id", "ended_at"], unique=False
        )

    op.create_table(
        "crops",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("crop_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_crops_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crops")),
        sa.UniqueConstraint("farm_id", "crop_id", name=op.f("uq_crops_farm_id")),
    )
    op.create_table(
        "dictionary_terms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("canonical_id", sa.String(length=64), nullable=False),
        sa.Column("display", sa.String(length=128), nullable=False),
        sa.Column("synonyms", sa.JSON(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_dictionary_terms_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dictionary_terms")),
        sa.UniqueConstraint(
            "farm_id", "kind", "canonical_id", name=op.f("uq_dictionary_terms_farm_id")
        ),
    )
    with op.batch_alter_table("dictionary_terms", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_dictionary_terms_farm_id"), ["farm_id"], unique=False)

    op.create_table(
        "farm_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_farm_tokens_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_farm_tokens")),
    )
    op.create_table(
        "fields",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("field_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("area_ha", sa.Float(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_fields_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fields")),
        sa.UniqueConstraint("farm_id", "field_id", name=op.f("uq_fields_farm_id")),
    )
    op.create_table(
        "operation_drafts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("source_message_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_operation_drafts_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operation_drafts")),
    )
    with op.batch_alter_table("operation_drafts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_operation_drafts_user_id"), ["user_id"], unique=False)

    op.create_table(
        "pending_terms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("term", sa.String(length=128), nullable=False),
        sa.Column("first_message", sa.Text(), nullable=False),
        sa.Column("times_seen", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("canonical_id", sa.String(length=64), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_pending_terms_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_terms")),
        sa.UniqueConstraint("farm_id", "kind", "term", name=op.f("uq_pending_terms_farm_id")),
    )
    with op.batch_alter_table("pending_terms", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pending_terms_status"), ["status"], unique=False)

    op.create_table(
        "sensor_readings",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("field_id", sa.String(length=64), nullable=True),
        sa.Column("sensor_id", sa.String(length=64), nullable=False),
        sa.Column("sensor_type", sa.String(length=32), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("measured_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column(
            "received_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_sensor_readings_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sensor_readings")),
        sa.UniqueConstraint(
            "farm_id",
            "sensor_id",
            "sensor_type",
            "measured_at",
            name=op.f("uq_sensor_readings_farm_id"),
        ),
    )
    with op.batch_alter_table("sensor_readings", schema=None) as batch_op:
        batch_op.create_index(
            "ix_sensor_readings_farm_type_time",
            ["farm_id", "sensor_type", "measured_at"],
            unique=False,
        )

    op.create_table(
        "operations",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("op_type", sa.String(length=32), nullable=False),
        sa.Column("field_id", sa.String(length=64), nullable=True),
        sa.Column("crop_id", sa.String(length=64), nullable=True),
        sa.Column("quantity", sa.Float(), nullable=True),
        sa.Column("unit", sa.String(length=16), nullable=True),
        sa.Column("product", sa.String(length=128), nullable=True),
        sa.Column("op_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("source_chat_id", sa.BigInteger(), nullable=True),
        sa.Column("source_message_id", sa.BigInteger(), nullable=True),
        sa.Column("source_key", sa.String(length=96), nullable=True),
        sa.Column("author", sa.String(length=64), nullable=False),
        sa.Column("pending_term_id", sa.Integer(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_operations_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["pending_term_id"],
            ["pending_terms.id"],
            name=op.f("fk_operations_pending_term_id_pending_terms"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operations")),
        sa.UniqueConstraint("source_key", name=op.f("uq_operations_source_key")),
    )
    with op.batch_alter_table("operations", schema=None) as batch_op:
        batch_op.create_index("ix_operations_farm_date", ["farm_id", "op_date"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("operations", schema=None) as batch_op:
        batch_op.drop_index("ix_operations_farm_date")

    op.drop_table("operations")
    with op.batch_alter_table("sensor_readings", schema=None) as batch_op:
        batch_op.drop_index("ix_sensor_readings_farm_type_time")

    op.drop_table("sensor_readings")
    with op.batch_alter_table("pending_terms", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pending_terms_status"))

    op.drop_table("pending_terms")
    with op.batch_alter_table("operation_drafts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_operation_drafts_user_id"))

    op.drop_table("operation_drafts")
    op.drop_table("fields")
    op.drop_table("farm_tokens")
    with op.batch_alter_table("dictionary_terms", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dictionary_terms_farm_id"))

    op.drop_table("dictionary_terms")
    op.drop_table("crops")
    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.drop_index("ix_alerts_open")

    op.drop_table("alerts")
