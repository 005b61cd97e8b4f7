"""Alert episodes: the probe, the value that ended an episode, the recovery message.

``sensor_id`` keys the episodes of probes without a field and of silent probes
("датчик мовчить"); ``ended_value`` is the reading that closed an episode;
``recovery_notified_at`` records the one recovery message. Episodes closed before
this migration count as already told (no recovery messages about the past), and
open episodes of probes without a field get the probe that last reported.

Revision ID: 0012_alert_episodes
Revises: 0011_farm_region
Create Date: 2026-12-10 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_alert_episodes"
down_revision: str | None = "0011_farm_region"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sensor_id", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("ended_value", sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column("recovery_notified_at", sa.DateTime(timezone=True), nullable=True)
        )
    op.execute("UPDATE alerts SET recovery_notified_at = ended_at WHERE ended_at IS NOT NULL")
    op.execute(
        "UPDATE alerts SET sensor_id = ("
        " SELECT r.sensor_id FROM sensor_readings r"
        " WHERE r.farm_id = alerts.farm_id AND r.sensor_type = alerts.sensor_type"
        " AND r.field_id IS NULL ORDER BY r.measured_at DESC LIMIT 1)"
        " WHERE field_id IS NULL AND ended_at IS NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("alerts", schema=None) as batch_op:
        batch_op.drop_column("recovery_notified_at")
        batch_op.drop_column("ended_value")
        batch_op.drop_column("sensor_id")
