"""Indexes for the nightly jobs (issue 17 points 4 and 5).

* ``ix_rule_proposals_status``: the nightly quality job's read of the proposals still
  waiting, found by tests/integration/test_query_plans_session.py (it explains every
  statement of a scripted session and of every job).
* ``ix_interactions_user_created`` gains the intent
  (``ix_interactions_user_created_intent``): the profile learning job counts each
  farmer's intents over the window from the index alone; with a table lookup per
  interaction a chunk of 100 farmers held SQLite for 30-80 ms at 5,000,000
  interactions (12 ms from the index).

Revision ID: 0021_query_plan_indexes
Revises: 0020_inbox_replies_sent
Create Date: 2026-12-01 15:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0021_query_plan_indexes"
down_revision: str | None = "0020_inbox_replies_sent"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rule_proposals_status", "rule_proposals", ["status"])
    op.create_index(
        "ix_interactions_user_created_intent",
        "interactions",
        ["user_id", "created_at", "intent"],
    )
    op.drop_index("ix_interactions_user_created", table_name="interactions")


def downgrade() -> None:
    op.create_index("ix_interactions_user_created", "interactions", ["user_id", "created_at"])
    op.drop_index("ix_interactions_user_created_intent", table_name="interactions")
    op.drop_index("ix_rule_proposals_status", table_name="rule_proposals")
