"""The steps of a migration that adds (or drops) CHECK constraints listing a column's
values (``0023_row_state_checks``, ``0024_closed_set_checks``): one place for the
refusal of rows holding another value and for SQLite's table copies.

A migration passes its own table of values, written out in the migration (never read
from db/states.py), so it stays what it was when a value is added later.
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlalchemy as sa
from alembic import op

#: table -> {column: the values it may hold}.
Checks = Mapping[str, Mapping[str, tuple[str, ...]]]


def condition(column: str, values: tuple[str, ...]) -> str:
    listed = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({listed})"


def constraint_name(table: str, column: str) -> str:
    return f"ck_{table}_{column}"


def refuse_unknown_values(revision: str, checks: Checks) -> None:
    """Raise, naming every (table, column, values found) outside its set, before
    anything is changed: which value is right is for an operator to decide."""
    found = []
    connection = op.get_bind()
    for table, columns in checks.items():
        for column, values in columns.items():
            outside = f"NOT ({condition(column, values)})"
            rows = connection.execute(
                sa.text(f"SELECT DISTINCT {column} FROM {table} WHERE {outside}")
            )
            unknown = sorted(str(value) for (value,) in rows)
            if unknown:
                found.append(f"{table}.{column}: {', '.join(map(repr, unknown))}")
    if found:
        raise RuntimeError(
            f"{revision}: rows hold values outside their column's set; fix them "
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


def change_every_table(checks: Checks, *, add: bool) -> None:
    """Add (or drop) each column's constraint. SQLite cannot add a CHECK to a table:
    batch mode copies the table. Dropping ``pending_terms`` on the way sets
    ``operations.pending_term_id`` to NULL (ON DELETE SET NULL, foreign keys on, and a
    PRAGMA cannot turn them off inside the migration's transaction), so those links
    are kept aside and put back. No other table in ``checks`` may be a foreign key's
    parent (its children would lose their rows or links)."""
    keep_links = op.get_bind().dialect.name == "sqlite" and "pending_terms" in checks
    if keep_links:
        _keep_term_links()
    for table, columns in checks.items():
        # recreate="auto": a copy on SQLite, ALTER TABLE ... CONSTRAINT on PostgreSQL.
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column, values in columns.items():
                name = batch_op.f(constraint_name(table, column))
                if add:
                    batch_op.create_check_constraint(name, condition(column, values))
                else:
                    batch_op.drop_constraint(name, type_="check")
    if keep_links:
        _restore_term_links()
