"""A farmer can turn the weather warnings off in /me (issue 27 point 6):
``user_profiles.weather_warnings``, on for everyone until they say otherwise.

Revision ID: 0036_weather_warnings_switch
Revises: 0035_weather_warning_kinds
Create Date: 2026-12-03 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0036_weather_warnings_switch"
down_revision: str | None = "0035_weather_warning_kinds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A NOT NULL column with a constant default: in place on SQLite and PostgreSQL.
    op.add_column(
        "user_profiles",
        sa.Column("weather_warnings", sa.Boolean(), nullable=False, server_default=sa.true()),
    )


def downgrade() -> None:
    # In place (SQLite 3.35+ drops a plain column): a batch copy of user_profiles, a
    # parent table, would cascade-delete its children's rows.
    op.drop_column("user_profiles", "weather_warnings")
