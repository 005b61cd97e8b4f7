"""Weather warnings of heavy rain on a planned spraying and of heat (issue 27 point 6):
``weather_warnings.kind`` may also be ``rain`` and ``heat``.

Revision ID: 0035_weather_warning_kinds
Revises: 0032_outbox_timed_out
Create Date: 2026-12-02 20:40:00.000000
"""

from collections.abc import Sequence

from db.migration_checks import Checks, change_every_table, refuse_unknown_values

revision: str = "0035_weather_warning_kinds"
down_revision: str | None = "0032_outbox_timed_out"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE: Checks = {"weather_warnings": {"kind": ("frost",)}}
AFTER: Checks = {"weather_warnings": {"kind": ("frost", "rain", "heat")}}


def upgrade() -> None:
    change_every_table(BEFORE, add=False)
    change_every_table(AFTER, add=True)


def downgrade() -> None:
    refuse_unknown_values(revision, BEFORE)
    change_every_table(AFTER, add=False)
    change_every_table(BEFORE, add=True)
