"""Farms and fields on the map, and the forecast cache (issue 27, docs/weather.md).

``farm_profiles`` and ``fields`` get a nullable point (WGS84 degrees), set from a
Telegram location. ``weather_hours`` holds Open-Meteo's hourly forecast per location
cell (the point rounded to 0.05 degrees, kept as integer hundredths so the key
compares exactly on SQLite and PostgreSQL) and UTC hour, shared by every instance.
``weather_warnings`` holds the warnings Stepan wrote first, one per farm, kind and day.

Revision ID: 0027_weather
Revises: 0026_one_draft_per_message (0025 and 0026 are written by other branches; the
merge puts them in the chain)
Create Date: 2026-12-02 16:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0027_weather"
down_revision: str | None = "0026_one_draft_per_message"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_POINTED = ("farm_profiles", "fields")


def upgrade() -> None:
    for table in _POINTED:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("latitude", sa.Float(), nullable=True))
            batch.add_column(sa.Column("longitude", sa.Float(), nullable=True))
    op.create_table(
        "weather_hours",
        sa.Column("lat_e2", sa.Integer(), nullable=False),
        sa.Column("lon_e2", sa.Integer(), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("temperature", sa.Float(), nullable=True),
        sa.Column("humidity", sa.Float(), nullable=True),
        sa.Column("precipitation", sa.Float(), nullable=True),
        sa.Column("precipitation_probability", sa.Float(), nullable=True),
        sa.Column("wind_speed", sa.Float(), nullable=True),
        sa.Column("soil_temperature", sa.Float(), nullable=True),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("lat_e2", "lon_e2", "hour"),
    )
    # The job forgets old hours by time, whatever their cell.
    op.create_index("ix_weather_hours_hour", "weather_hours", ["hour"])
    # The job's active farmers: those seen lately, not every farmer ever.
    op.create_index("ix_user_profiles_last_seen", "user_profiles", ["last_seen"])
    op.create_table(
        "weather_warnings",
        sa.Column("farm_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["farm_id"], ["farm_profiles.farm_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("farm_id", "kind", "day"),
        # db/states.py WeatherWarningKind at this revision.
        sa.CheckConstraint("kind IN ('frost')", name=op.f("ck_weather_warnings_kind")),
    )


def downgrade() -> None:
    op.drop_index("ix_user_profiles_last_seen", table_name="user_profiles")
    op.drop_table("weather_warnings")
    op.drop_table("weather_hours")
    # DROP COLUMN in place, never batch mode's move and copy: on SQLite that drops
    # farm_profiles, and its foreign keys would cascade (see 0011_farm_region).
    for table in _POINTED:
        op.drop_column(table, "longitude")
        op.drop_column(table, "latitude")
