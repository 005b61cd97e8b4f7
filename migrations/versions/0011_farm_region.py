"""The farm's region (an oblast id of rules/knowledge/zones.toml): agronomy answers
use its agro-climatic zone.

Revision ID: 0011_farm_region
Revises: 0010_stats_indexes
Create Date: 2026-12-01 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_farm_region"
down_revision: str | None = "0010_stats_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("farm_profiles") as batch:
        batch.add_column(sa.Column("region", sa.String(length=64), nullable=True))


def downgrade() -> None:
    # DROP COLUMN in place (SQLite >= 3.35, PostgreSQL), never batch mode's "move
    # and copy": on SQLite that drops farm_profiles, and with foreign keys on
    # (db/engine.py) dropping it cascades to every farm's fields, crops, operations
    # and readings (tests/integration/test_migration_round_trip.py).
    op.drop_column("farm_profiles", "region")
