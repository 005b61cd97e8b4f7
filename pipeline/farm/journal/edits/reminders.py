"""«Виконано?»: planned work whose day passed is offered to its farmer once, in the
morning of the farm's day, with a button for each entry (✅ opens the "done" card,
🗑 the delete card), so plans become facts without anyone remembering to say so
(issue 26 point 3). Run by the hourly ``plan_reminders`` job (bot/wiring/scheduler.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from db.repositories import journal as repo
from db.uow import Database
from pipeline.actions import EntryAction, EntryVerb
from pipeline.farm.journal.card import date_text
from pipeline.farm.localtime import local_time
from pipeline.farm.reports import op_label
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.types import Button, Language, Reply

__all__ = ["PlanReminders", "Reminder"]

#: A plan older than this is not asked about any more.
LOOK_BACK = timedelta(days=7)
#: The farm's hours in which a reminder may go out (never at night).
HOURS = range(7, 21)
#: At most this many entries in one message (each a button).
PER_MESSAGE = 8


@dataclass(frozen=True, slots=True)
class Reminder:
    user_id: str
    reply: Reply
    operation_ids: tuple[int, ...]


#: Delivers one reminder; False (or raising) when it could not be sent.
Send = Callable[[Reminder], Awaitable[bool]]


class PlanReminders:
    def __init__(self, db: Database, catalog: Catalog) -> None:
        self._db = db
        self._catalog = catalog

    async def run(self, now: datetime, send: Send) -> str:
        """Send what is due; the entries of each sent reminder are marked (once)."""
        sent = 0
        for reminder in await self.due(now):
            if await send(reminder):
                async with self._db.write() as session:
                    await repo.mark_reminded(session, reminder.operation_ids, now)
                sent += 1
        return f"sent {sent}"

    async def due(self, now: datetime) -> list[Reminder]:
        today = now.date()
        async with self._db.read() as session:
            overdue = await repo.overdue_plans(
                session, today - LOOK_BACK, today + timedelta(days=1)
            )
        by_user: dict[str, list[repo.Overdue]] = {}
        for item in overdue:
            local = local_time(now, item.timezone)
            if local.hour in HOURS and _day(item) < local.date():
                by_user.setdefault(item.user_id, []).append(item)
        return [self._reminder(user, items[:PER_MESSAGE]) for user, items in by_user.items()]

    def _reminder(self, user_id: str, items: Sequence[repo.Overdue]) -> Reminder:
        lang: Language = "en" if items[0].language == "en" else "uk"
        texts = Texts(self._catalog, lang)
        buttons = tuple(
            (
                Button(
                    texts.text("journal_edit.remind_done", date=date_text(_day(item))[:5],
                               operation=op_label(texts, str(item.entry.values["op_type"]))),
                    EntryAction(EntryVerb.DONE, item.entry.id),
                ),
                Button(texts.text("journal_edit.entry_delete"),
                       EntryAction(EntryVerb.DELETE, item.entry.id)),
            )
            for item in items
        )  # fmt: skip
        text = texts.text("journal_edit.remind", count=len(items))
        return Reminder(user_id, Reply(text, buttons), tuple(item.entry.id for item in items))


def _day(item: repo.Overdue) -> date:
    value = item.entry.values["op_date"]
    return value if isinstance(value, date) else date.fromisoformat(str(value))
