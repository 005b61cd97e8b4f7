"""The parts of a reply kept while waiting out flood control go in order, all of
them: each ``telegram_outbox`` row names the row of the part before it
(bot/delivery/deferred.py, bot/delivery/render.py).

Revision ID: 0022_outbox_reply_order
Revises: 0021_query_plan_indexes
Create Date: 2026-12-01 19:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_outbox_reply_order"
down_revision: str | None = "0021_query_plan_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable ADD COLUMN: in place on SQLite and PostgreSQL.
    op.add_column("telegram_outbox", sa.Column("after_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("telegram_outbox", "after_id")
