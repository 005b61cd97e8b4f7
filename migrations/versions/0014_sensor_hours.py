"""Hourly rollups of sensor readings, maintained at ingest (``sensor_hours``).

One row per farm, type, UTC hour (hours since the epoch), field and probe with the
count, min, max and sum of its readings: a 90-day chart on a million readings reads
tens of thousands of hours instead of every reading. Existing readings are rolled
up here; from now on the ingest keeps the rollups in its own transaction
(db/repositories/sensor_rollups.py). ``field_key`` is "" for a probe without a
field (a primary-key column cannot be NULL).

Revision ID: 0014_sensor_hours
Revises: 0013_agronomist_questions
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_sensor_hours"
down_revision: str | None = "0013_agronomist_questions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The UTC hour of a reading, per dialect (SQLite stores the UTC time as text).
_HOUR = {
    "sqlite": "(CAST(strftime('%s', measured_at) AS INTEGER) / 3600)",
    "postgresql": "CAST(floor(EXTRACT(EPOCH FROM measured_at) / 3600) AS BIGINT)",
}


def upgrade() -> None:
    op.create_table(
        "sensor_hours",
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("sensor_type", sa.String(length=32), nullable=False),
        sa.Column("hour", sa.BigInteger(), nullable=False),
        sa.Column("field_key", sa.String(length=64), nullable=False),
        sa.Column("sensor_id", sa.String(length=64), nullable=False),
        sa.Column("readings", sa.Integer(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("total", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["farm_id"],
            ["farm_profiles.farm_id"],
            name=op.f("fk_sensor_hours_farm_id_farm_profiles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "farm_id", "sensor_type", "hour", "field_key", "sensor_id", name=op.f("pk_sensor_hours")
        ),
    )
    hour = _HOUR["sqlite" if op.get_bind().dialect.name == "sqlite" else "postgresql"]
    op.execute(
        "INSERT INTO sensor_hours"
        " (farm_id, sensor_type, hour, field_key, sensor_id, readings, low, high, total)"
        f" SELECT farm_id, sensor_type, {hour}, COALESCE(field_id, ''), sensor_id,"
        " COUNT(*), MIN(value), MAX(value), SUM(value)"
        " FROM sensor_readings"
        f" GROUP BY farm_id, sensor_type, {hour}, COALESCE(field_id, ''), sensor_id"
    )


def downgrade() -> None:
    op.drop_table("sensor_hours")
