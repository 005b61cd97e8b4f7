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
with the constraint, keeping the operations' links to ``pending_terms``
(db/migration_checks.py). None of the other tables is a foreign key's parent.

Revision ID: 0023_row_state_checks
Revises: 0022_outbox_reply_order
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

from db.migration_checks import Checks, change_every_table, refuse_unknown_values

revision: str = "0023_row_state_checks"
down_revision: str | None = "0022_outbox_reply_order"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: table -> {column: the values it may hold}, as db/states.py had them at this revision.
CHECKS: Checks = {
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


def upgrade() -> None:
    refuse_unknown_values(revision, CHECKS)
    change_every_table(CHECKS, add=True)


def downgrade() -> None:
    change_every_table(CHECKS, add=False)
