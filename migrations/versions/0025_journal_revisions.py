"""The journal can be corrected and undone (issue 26): an entry is deleted by setting
``operations.deleted_at`` (kept, restorable; queries leave it out), and every write,
edit, delete, restore and plan->done is a row of ``operation_revisions`` (who, when,
the values before and after, the card and message it came from). ``source_key`` is
unique: a redelivered update or a second tap changes nothing twice. The kinds are
db/states.py's ``RevisionKind`` at this revision.

Revision ID: 0025_journal_revisions
Revises: 0024_closed_set_checks
Create Date: 2026-12-02 16:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025_journal_revisions"
down_revision: str | None = "0024_closed_set_checks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KINDS = ("write", "edit", "delete", "restore", "done")


def upgrade() -> None:
    # A nullable ADD COLUMN: in place on SQLite and PostgreSQL.
    op.add_column("operations", sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    # A planned entry whose day passed is offered once as «виконано?».
    op.add_column("operations", sa.Column("reminded_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_operations_status_date", "operations", ["status", "op_date"])
    kinds = ", ".join(f"'{kind}'" for kind in _KINDS)
    op.create_table(
        "operation_revisions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column(
            "farm_id",
            sa.String(64),
            sa.ForeignKey(
                "farm_profiles.farm_id",
                ondelete="CASCADE",
                name="fk_operation_revisions_farm_id_farm_profiles",
            ),
            nullable=False,
        ),
        sa.Column("operation_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("draft_id", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(64), nullable=True),
        sa.Column("source_key", sa.String(96), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_operation_revisions"),
        sa.UniqueConstraint("source_key", name="uq_operation_revisions_source_key"),
        sa.CheckConstraint(f"kind IN ({kinds})", name="kind"),
    )
    op.create_index(
        "ix_operation_revisions_operation", "operation_revisions", ["operation_id", "id"]
    )
    op.create_index(
        "ix_operation_revisions_farm_created", "operation_revisions", ["farm_id", "created_at"]
    )
    op.create_index("ix_operation_revisions_draft", "operation_revisions", ["draft_id"])


def downgrade() -> None:
    op.drop_index("ix_operation_revisions_draft", table_name="operation_revisions")
    op.drop_index("ix_operation_revisions_farm_created", table_name="operation_revisions")
    op.drop_index("ix_operation_revisions_operation", table_name="operation_revisions")
    op.drop_table("operation_revisions")
    op.drop_index("ix_operations_status_date", table_name="operations")
    with op.batch_alter_table("operations") as batch:
        batch.drop_column("reminded_at")
        batch.drop_column("deleted_at")
