"""The other closed sets stored as strings get their CHECK constraint
``ck_<table>_<column>`` too (issue 24 point 5): the kind of a dictionary or pending
term, a handoff's direction and privacy level, a feedback's verdict and reason, a
learning's and a correction's source, the routing mode of an interaction and of a
correction, a memory-outbox operation, a conversation summary's source and an answer
cache slot. Their values are db/states.py's enums at this revision.

As in ``0023_row_state_checks``: rows already holding another value make the upgrade
refuse to run and name them, before anything changes; the values are written out
here; on SQLite each table is copied, keeping the operations' links to
``pending_terms`` (db/migration_checks.py). None of the other tables is a foreign
key's parent (``user_profiles`` and ``farm_profiles`` are, so their closed sets,
expertise, style, language and phase, are left for a migration that copies their
children too).

Revision ID: 0024_closed_set_checks
Revises: 0023_row_state_checks
Create Date: 2026-12-09 10:00:00.000000
"""

from collections.abc import Sequence

from db.migration_checks import Checks, change_every_table, refuse_unknown_values

revision: str = "0024_closed_set_checks"
down_revision: str | None = "0023_row_state_checks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TERM_KINDS = ("field", "crop", "operation", "product")
_MODES = ("light", "deep")

#: table -> {column: the values it may hold}, as db/states.py had them at this revision.
CHECKS: Checks = {
    "dictionary_terms": {"kind": _TERM_KINDS},
    "pending_terms": {"kind": _TERM_KINDS},
    "handoffs": {
        "direction": ("out", "in"),
        "privacy_level": ("public", "team", "confidential"),
    },
    "feedback": {
        "verdict": ("up", "down", "fix"),
        "reason": ("wrong", "not_asked", "too_long", "language"),
    },
    "learnings": {"source": ("negative", "fixit", "correction")},
    "corrections": {
        "source": ("operator", "farmer"),
        "was_mode": _MODES,
        "mode": _MODES,
    },
    "interactions": {"mode": _MODES},
    "memory_outbox": {
        "operation": ("upsert", "delete", "summary_add", "summary_delete", "summary_purge"),
    },
    "conversation_summaries": {"source": ("llm", "extractive")},
    "answer_cache": {"slot": ("repeat", "status")},
}


def upgrade() -> None:
    refuse_unknown_values(revision, CHECKS)
    change_every_table(CHECKS, add=True)


def downgrade() -> None:
    change_every_table(CHECKS, add=False)
