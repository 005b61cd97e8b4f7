"""Row states are closed sets: a CHECK constraint ``ck_<table>_<column>`` on every
state, status, outcome and kind column, admitting only the values of its enum in
db/states.py (issue 24 point 5).

Rows already holding another value: the upgrade refuses to run and names them
(table, column, the values found), before changing anything. Nothing in the code
writes such a value; a database that holds one was edited by hand, and which value
is right is for an operator to decide, not for a migration to guess.

The values are written out here, not read from db/states.py: a migration stays what
it was when a value is added later (with a migration of its own).

SQLite cannot add a CHECK to a table: batch mode copies each table into a new one
with the constraint. Dropping ``pending_terms`` on the way sets
``operations.pending_term_id`` to NULL (ON DELETE SET NULL, foreign keys on, and a
PRAGMA cannot turn them off inside the migration's transaction), so those links are
kept aside and put back. None of the other tables is a foreign key's parent.

Revision ID: 0023_row_state_checks
Revises: 0022_outbox_reply_order
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_row_state_checks"
down_revision: str | None = "0022_outbox_reply_order"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: table -> {column: the values it may hold}, as db/states.py had them at this revision.
CHECKS: dict[str, dict[str, tuple[str, ...]]] = {
    "pending_terms": {"status": ("pending", "approved", "rejected", "applied")},
    "operation_drafts": {"status": ("draft", "written", "cancelled")},
    "operations": {"status": ("planned", "done")},
    "agronomist_questions": {
        "status": ("offered", "pending", "refused", "answered", "expired"),
    },
    "rule_proposals": {
        "status": ("pending", "approved", "rejected"),
        "kind": ("trigger", "keyword"),
    },
    "update_inbox": {
        "status": ("handling", "done"),
        "outcome": ("ok", "error", "poison", "deferred"),
    },
    "memory_outbox": {"state": ("pending", "config_error", "dead")},
    "job_runs": {"last_outcome": ("ok", "error", "skipped")},
    "job_slots": {"outcome": ("ok", "error", "skipped")},
    "alerts": {"kind": ("below_min", "above_max", "silent")},
}


def _condition(column: str, values: tuple[str, ...]) -> str:
    listed = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({listed})"


def _name(table: str, column: str) -> str:
    return f"ck_{table}_{column}"


def _refuse_unknown_values() -> None:
    found = []
    connection = op.get_bind()
    for table, columns in CHECKS.items():
        for column, values in columns.items():
            outside = f"NOT ({_condition(column, values)})"
            rows = connection.execute(
                sa.text(f"SELECT DISTINCT {column} FROM {table} WHERE {outside}")
            )
            unknown = sorted(str(value) for (value,) in rows)
            if unknown:
                found.append(f"{table}.{column}: {', '.join(map(repr, unknown))}")
    if found:
        raise RuntimeError(
            "0023_row_state_checks: rows hold values outside their column's set; fix them "
            "(db/states.py lists the values) and upgrade again: " + "; ".join(found)
        )


def _keep_term_links() -> None:
    op.execute(
        "CREATE TEMP TABLE _kept_term_links AS "
        "SELECT id, pending_term_id FROM operations WHERE pending_term_id IS NOT NULL"
    )


def _restore_term_links() -> None:
    op.execute(
        "UPDATE operations SET pending_term_id = (SELECT k.pending_term_id "
        "FROM _kept_term_links AS k WHERE k.id = operations.id) "
        "WHERE id IN (SELECT id FROM _kept_term_links)"
    )
    op.execute("DROP TABLE _kept_term_links")


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def _change_every_table(add: bool) -> None:
    sqlite = _sqlite()
    if sqlite:
        _keep_term_links()
    for table, columns in CHECKS.items():
        # recreate="auto": a copy on SQLite, ALTER TABLE ... CONSTRAINT on PostgreSQL.
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column, values in columns.items():
                if add:
                    batch_op.create_check_constraint(
                        batch_op.f(_name(table, column)), _condition(column, values)
                    )
                else:
                    batch_op.drop_constraint(batch_op.f(_name(table, column)), type_="check")
    if sqlite:
        _restore_term_links()


def upgrade() -> None:
    _refuse_unknown_values()
    _change_every_table(add=True)


def downgrade() -> None:
    _change_every_table(add=False)
