"""A recorded spraying keeps the weather at its time (issue 27 point 7): the forecast
cache's temperature, wind, humidity and the rain in the hours after, as JSON on its
journal entry (``operations.weather``), shown on the card and in the report.

Revision ID: 0028_operation_weather
Revises: 0027_weather
Create Date: 2026-12-02 17:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028_operation_weather"
down_revision: str | None = "0027_weather"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable ADD COLUMN: in place on SQLite and PostgreSQL.
    op.add_column("operations", sa.Column("weather", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("operations") as batch:
        batch.drop_column("weather")
