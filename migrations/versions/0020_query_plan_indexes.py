"""The index the nightly job's read of waiting proposals needs (issue 17 point 5):
found by tests/integration/test_query_plans_session.py, which explains every
statement of a scripted session and every job.

Revision ID: 0020_query_plan_indexes
Revises: 0019_phase_lock
Create Date: 2026-12-01 15:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0020_query_plan_indexes"
down_revision: str | None = "0019_phase_lock"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rule_proposals_status", "rule_proposals", ["status"])


def downgrade() -> None:
    op.drop_index("ix_rule_proposals_status", table_name="rule_proposals")
