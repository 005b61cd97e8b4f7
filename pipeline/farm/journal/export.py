"""The report button under a journal list cut at ten lines (docs/journal.md, "Reading
the journal back"): «і ще N — повний список у звіті Excel» and a button that sends the
workbook of exactly that listing, the days the farmer asked for and the one field the
list was of, never this month's report in their place.

The button comes back from a client, so everything on it is checked again: the days
must be a real, bounded span; the farm is the presser's own (by the user id Telegram
gives, never the button); the field must be a field of that farm. Anything else is
``None``, which the pipeline answers with "this button has expired".
"""

from __future__ import annotations

from datetime import date

from db.repositories import farm as farm_repo
from db.uow import Database
from pipeline.actions import JournalReportAction
from pipeline.farm.dictionary import Vocabulary
from pipeline.farm.journal.card import shared_crop_labels
from pipeline.farm.reports import build_operations_workbook, period_text
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.replies.voice import leveled
from pipeline.types import Attachment, Button, Language, Reply

#: The days a report button may carry: any day in range is a real date.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2100, 12, 31)
#: The longest listing the button covers (two years); a longer one offers none.
MAX_DAYS = 731


def within(start: date, end: date) -> bool:
    """Whether ``start``..``end`` is a span a report button may carry."""
    return FIRST_DAY <= start <= end <= LAST_DAY and (end - start).days < MAX_DAYS


def report_button(texts: Texts, start: date, end: date, field_row: int | None) -> Button | None:
    """The button for the listing of ``start``..``end`` (one field's when
    ``field_row``), or None when the span is not one a button may carry."""
    if not within(start, end):
        return None
    label = texts.text("compose.journal.report_button")
    return Button(label, JournalReportAction(start, end, field_row))


class JournalExport:
    """Answers the report button: the workbook of the listing it names."""

    def __init__(self, catalog: Catalog, db: Database, vocabulary: Vocabulary) -> None:
        self._catalog = catalog
        self._db = db
        self._vocabulary = vocabulary

    async def reply(
        self, action: JournalReportAction, *, user_id: str, lang: Language, voice: str
    ) -> Reply | None:
        """The workbook and its line, or None for a button that names no listing of
        the presser's farm (forged, or a field since removed)."""
        start, end = action.start, action.end
        if not within(start, end):
            return None
        async with self._db.read() as session:
            farm = await farm_repo.farm_of(session, user_id)
            if farm is None:
                return None
            field_id: str | None = None
            if action.field_row is not None:
                rows = await farm_repo.fields(session, farm.farm_id)
                field_id = next((r.field_id for r in rows if r.id == action.field_row), None)
                if field_id is None:
                    return None
        texts = Texts(self._catalog, lang)
        report = await build_operations_workbook(
            self._db,
            farm.farm_id,
            start,
            end,
            texts=texts,
            field_id=field_id,
            shared_crops=shared_crop_labels(self._vocabulary, lang),
            name_rules=self._vocabulary.rules,
        )
        if report.empty:
            return Reply(texts.text("compose.report_empty", period=period_text(start, end)))
        count = texts.plural
        key = leveled(texts, "compose.report_ready", voice)
        text = texts.text(
            key,
            period=period_text(start, end),
            records=count("plural.records", report.rows),
            operations=count("plural.operations", report.rows),
        )
        return Reply(text, document=Attachment(report.filename, report.content))
