"""What the query-plan tests accept: tables that stay small, and the few reads of a
growing table that are whole on purpose (each with its reason). Shared by
``tests/integration/test_query_plans.py`` (every repository function) and
``tests/integration/test_query_plans_session.py`` (every statement of a scripted
session of messages and every job)."""

from __future__ import annotations

from db.models import Base

#: Tables that do not grow with use: a full read of them is a few rows.
BOUNDED = {
    "job_runs": "one row per scheduled job",
    "rule_overlays": "only the newest versions are kept (learning.add_overlay's keep)",
    "alembic_version": "one row",
    "job_slots": "a row per scheduled run, dropped after a week by text retention",
    "telegram_outbox": "replies waiting out Telegram's flood control; a sent one is deleted",
}
GROWING = {table.name for table in Base.metadata.sorted_tables} - set(BOUNDED)

#: (function, table) pairs that read the table whole on purpose.
WHOLE_BY_DESIGN: dict[tuple[str, str], str] = {
    ("farm.pending_counts", "pending_terms"): "the operators' count per status: one walk "
    "of ix_pending_terms_status, a row per unknown name ever seen (not per message)",
    ("learning.corrections", "corrections"): "the nightly job reads every labelled example",
    ("learning.correction_examples", "corrections"): "the nightly job replays every "
    "labelled example against the candidate rules",
    ("learning.newest_learnings", "learnings"): "the newest few: the primary key walked "
    "backwards and stopped by LIMIT",
    ("profiles.some_user_ids", "user_profiles"): "once per process start in static-token "
    "mode: the primary key walked and stopped by LIMIT 2 (is there a second farmer?)",
    ("profile_learning.operator_mismatches", "user_profiles"): "once per process start: "
    "the stored operator flags against AGX_OPERATOR_IDS (one boolean per farmer)",
    ("recall.drop_answers_before", "answer_cache"): "the nightly retention: one remembered "
    "answer per farmer and slot, overwritten in place (grows with farmers, not messages)",
    ("recall.users_over_window", "conversation_summaries"): "the weekly fold counts every "
    "farmer's summaries: one walk of ix_conversation_summaries_user_end",
    ("sensor_rollups.rebuild", "sensor_hours"): "maintenance after a bulk load: rebuilds "
    "and counts every hour row",
    ("sensor_rollups.rebuild", "sensor_readings"): "maintenance after a bulk load: rolls "
    "up every reading (of one farm, or all)",
}
