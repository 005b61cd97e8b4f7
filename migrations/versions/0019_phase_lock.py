"""The farm's season phase set by an operator is locked: the journal no longer
infers it until the operator chooses "auto" (docs/memory.md, "Learning from use").

Revision ID: 0019_phase_lock
Revises: 0018_volume_indexes
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_phase_lock"
down_revision: str | None = "0018_volume_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN, never a batch "move and copy": on SQLite that drops and
    # re-creates farm_profiles, and dropping it cascades to every farm's readings,
    # fields, operations and alerts (ON DELETE CASCADE). SQLite adds a NOT NULL
    # column with a constant default in place.
    op.add_column(
        "farm_profiles",
        sa.Column("phase_locked", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    # DROP COLUMN in place (SQLite >= 3.35, PostgreSQL), for the same reason.
    op.drop_column("farm_profiles", "phase_locked")
