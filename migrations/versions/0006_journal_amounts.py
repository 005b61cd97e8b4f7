"""The journal keeps amounts apart (rate, total amount, area treated, yield) and each
farm has a timezone.

Existing operations keep ``quantity``/``unit`` and are copied into the new columns
by their unit: a depth of water or a per-hectare/per-tonne unit is a rate, t/ha of a
harvest a yield, ha an area, anything else a total amount.

Revision ID: 0006_journal_amounts
Revises: 0005_learning
Create Date: 2026-12-03 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_journal_amounts"
down_revision: str | None = "0005_learning"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("operations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rate", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("rate_unit", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("amount", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("amount_unit", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("area_ha", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("yield_t_ha", sa.Float(), nullable=True))
        batch_op.create_index(
            "ix_operations_author_created", ["author", "created_at"], unique=False
        )
    with op.batch_alter_table("farm_profiles", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "timezone",
                sa.String(length=64),
                server_default="Europe/Kyiv",
                nullable=False,
            )
        )
    with op.batch_alter_table("operation_drafts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_operation_drafts_user_created", ["user_id", "created_at"], unique=False
        )
    operations = sa.table(
        "operations",
        sa.column("op_type", sa.String),
        sa.column("quantity", sa.Float),
        sa.column("unit", sa.String),
        sa.column("rate", sa.Float),
        sa.column("rate_unit", sa.String),
        sa.column("amount", sa.Float),
        sa.column("amount_unit", sa.String),
        sa.column("area_ha", sa.Float),
        sa.column("yield_t_ha", sa.Float),
    )
    has = operations.c.quantity.is_not(None) & operations.c.unit.is_not(None)
    is_yield = (operations.c.op_type == "harvest") & (operations.c.unit == "t/ha")
    is_rate = (operations.c.unit == "mm") | operations.c.unit.like("%/%")
    op.execute(operations.update().where(has & is_yield).values(yield_t_ha=operations.c.quantity))
    op.execute(
        operations.update()
        .where(has & ~is_yield & is_rate)
        .values(rate=operations.c.quantity, rate_unit=operations.c.unit)
    )
    op.execute(
        operations.update()
        .where(has & (operations.c.unit == "ha"))
        .values(area_ha=operations.c.quantity)
    )
    op.execute(
        operations.update()
        .where(has & ~is_rate & (operations.c.unit != "ha"))
        .values(amount=operations.c.quantity, amount_unit=operations.c.unit)
    )


def downgrade() -> None:
    with op.batch_alter_table("operation_drafts", schema=None) as batch_op:
        batch_op.drop_index("ix_operation_drafts_user_created")
    # DROP COLUMN in place, not batch mode: re-creating farm_profiles on SQLite
    # would cascade-delete every farm's children (see 0011_farm_region.downgrade).
    op.drop_column("farm_profiles", "timezone")
    with op.batch_alter_table("operations", schema=None) as batch_op:
        batch_op.drop_index("ix_operations_author_created")
        batch_op.drop_column("yield_t_ha")
        batch_op.drop_column("area_ha")
        batch_op.drop_column("amount_unit")
        batch_op.drop_column("amount")
        batch_op.drop_column("rate_unit")
        batch_op.drop_column("rate")
