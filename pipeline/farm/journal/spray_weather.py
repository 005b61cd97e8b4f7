"""A recorded spraying keeps the weather at its time (issue 27 point 7): the forecast
cache's figures of its hour on its field, read before ✅'s write
(``Journal.use_weather`` gets the weather desk's ``at_work``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from pipeline.farm.journal.draft import DraftOperation, JournalDraft
from pipeline.farm.localtime import local_today, zone

__all__ = ["SPRAYING", "Conditions", "PlannedSpraying", "planned_in", "sprayings_weather"]

#: The weather of a spraying: (user, field id, moment) -> the cache's figures, or None.
Conditions = Callable[[str, str | None, datetime], Awaitable[Mapping[str, Any] | None]]
#: The operation whose weather the journal keeps (pesticide application records).
SPRAYING = "spraying"
#: A spraying dated another day than today is taken at this hour of its day.
SPRAY_HOUR = time(10)


def _moment(day: date, now: datetime, tz: str | None) -> datetime:
    """Done today: this hour; another day: 10:00 of it on the farm's clock."""
    if day == local_today(now, tz):
        return now
    return datetime.combine(day, SPRAY_HOUR, tzinfo=zone(tz)).astimezone(UTC)


async def sprayings_weather(
    conditions: Conditions,
    user_id: str,
    operations: Mapping[int, DraftOperation],
    now: datetime,
    tz: str | None,
) -> dict[int, Mapping[str, Any]]:
    """The weather of each done spraying among ``operations``, by its index."""
    found: dict[int, Mapping[str, Any]] = {}
    for i, operation in operations.items():
        if operation.op_type != SPRAYING or operation.status != "done":
            continue
        moment = _moment(operation.op_date, now, tz)
        weather = await conditions(user_id, operation.target_fields()[0], moment)
        if weather:
            found[i] = weather
    return found


@dataclass(frozen=True, slots=True)
class PlannedSpraying:
    """A spraying a journal card plans: its day and its (first) field."""

    day: date
    field_id: str | None


def planned_in(draft: JournalDraft) -> list[PlannedSpraying]:
    """The sprayings a card plans."""
    return [
        PlannedSpraying(op.op_date, op.target_fields()[0])
        for op in draft.operations
        if op.op_type == SPRAYING and op.status == "planned"
    ]
