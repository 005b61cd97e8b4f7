"""The agronomist desk: the picture a question came with, for the operators' card.

Revision ID: 0016_agronomist_photo
Revises: 0015_conversation_memory
Create Date: 2026-12-01 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_agronomist_photo"
down_revision: str | None = "0015_conversation_memory"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("agronomist_questions") as batch:
        batch.add_column(sa.Column("photo_file_id", sa.String(length=256), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agronomist_questions") as batch:
        batch.drop_column("photo_file_id")
