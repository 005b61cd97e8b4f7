"""Indexes for every query and foreign key that needs one, and none that nothing reads
(issue 17): the foreign keys operations.pending_term_id (also the target of ON DELETE
SET NULL), operation_drafts.farm_id and farm_tokens.farm_id; learnings.trace_id (a
reply's learning is looked up by it); a partial index over the interactions that
still hold their text (text retention clears them in chunks); the recent window of
sensor readings (the sensor watch); the alert watcher's messages due (open and
untold, or ended lately). ix_interactions_created_at goes (ix_interactions_stats
leads with created_at and serves every period read).

Revision ID: 0018_volume_indexes
Revises: 0017_telegram_outbox
Create Date: 2026-12-01 11:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_volume_indexes"
down_revision: str | None = "0017_telegram_outbox"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT_KEPT = "text IS NOT NULL"


def upgrade() -> None:
    op.create_index("ix_operations_pending_term_id", "operations", ["pending_term_id"])
    op.create_index("ix_operation_drafts_farm_id", "operation_drafts", ["farm_id"])
    op.create_index("ix_farm_tokens_farm_id", "farm_tokens", ["farm_id"])
    op.create_index("ix_learnings_trace_id", "learnings", ["trace_id"])
    op.create_index(
        "ix_interactions_text_kept",
        "interactions",
        ["created_at", "id"],
        sqlite_where=sa.text(TEXT_KEPT),
        postgresql_where=sa.text(TEXT_KEPT),
    )
    op.create_index(
        "ix_sensor_readings_recent", "sensor_readings", ["measured_at", "farm_id", "sensor_type"]
    )
    op.create_index("ix_alerts_due", "alerts", ["ended_at", "notified_at"])
    op.drop_index("ix_interactions_created_at", table_name="interactions")


def downgrade() -> None:
    op.create_index("ix_interactions_created_at", "interactions", ["created_at"])
    op.drop_index("ix_alerts_due", table_name="alerts")
    op.drop_index("ix_sensor_readings_recent", table_name="sensor_readings")
    op.drop_index("ix_interactions_text_kept", table_name="interactions")
    op.drop_index("ix_learnings_trace_id", table_name="learnings")
    op.drop_index("ix_farm_tokens_farm_id", table_name="farm_tokens")
    op.drop_index("ix_operation_drafts_farm_id", table_name="operation_drafts")
    op.drop_index("ix_operations_pending_term_id", table_name="operations")
