"""The recorder writes back only the ``COUNTED`` columns of a user's row (one
executemany UPDATE, pipeline/memory/profiles/recording.py): whatever ``_apply`` changes must
be among them, or the change would be silently lost at commit."""

from __future__ import annotations

from datetime import UTC, datetime

from db.models import UserProfileRow
from pipeline.intents import Intent
from pipeline.memory.profiles.recording import COUNTED, InteractionRecord, _apply
from pipeline.types import DepthDecision

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def _row() -> dict[str, object]:
    # Every column, a value _apply will want to change wherever it can.
    row: dict[str, object] = {column.key: None for column in UserProfileRow.__table__.columns}
    row.update(
        user_id="tg:1",
        interaction_count=29,
        expertise_level="novice",
        expertise_locked=False,
        preferred_language="uk",
        known_intents=["greeting"],
        recent_topics=[],
        operator=False,
        active=False,
    )
    return row


def test_apply_changes_only_the_counted_columns() -> None:
    row = _row()
    before = dict(row)
    record = InteractionRecord(
        user_id="tg:1",
        chat_id=1,
        trace_id="t1",
        text="звіт за тиждень",
        decision=DepthDecision("deep", Intent.REPORTING, (), 1.0, "kw"),
        crew=("reporter",),
        latency_ms=1.0,
        at=NOW,
        name="Оксана",
        language="en",
        written_in="en",
        lasting_language="en",
        operator=True,
    )
    _apply(row, record, NOW)
    changed = {key for key in row if row[key] != before[key]}
    # Every branch of _apply took effect (count, level, name, flags, language...).
    assert {"interaction_count", "name", "operator", "active", "preferred_language"} <= changed
    assert changed <= set(COUNTED)
