"""Corrections of the farm journal in conversation (docs/journal.md, issue 26): a
wrong number, field, date, operation or product fixed on the open card or in the
last entry, an entry deleted, a plan marked done, and ↩️ after any of them; every
change kept as a revision."""
