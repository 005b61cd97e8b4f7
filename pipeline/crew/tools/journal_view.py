"""The journal read back: "що записано за тиждень?", "покажи журнал", "які роботи
були на полі 3 у травні" list the period's entries, newest first (docs/journal.md,
"Reading the journal back")."""

from __future__ import annotations

from collections.abc import Sequence

from db.models import OperationRow
from db.repositories import farm as farm_repo
from db.uow import Session
from pipeline.actions import EntryAction, EntryVerb
from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import (
    JournalArgs,
    Tool,
    ToolResult,
    field_label,
    field_names,
    hemisphere,
    long_date,
    short_date,
    waiting_of,
)
from pipeline.crew.words import JournalView, field_by_name
from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.card import crop_label, quantity_text
from pipeline.farm.journal.export import report_button
from pipeline.farm.reports import op_label
from pipeline.farm.words.dates import DateWords, parse_period
from pipeline.types import Button


class JournalViewTools:
    def __init__(self, *, dates: DateWords, view: JournalView) -> None:
        self._dates = dates
        self._view = view

    def tools(self) -> dict[str, Tool]:
        return {"journal_entries": self.journal_entries}

    async def journal_entries(self, ctx: RunContext, args: JournalArgs) -> ToolResult:
        assert ctx.farm_id is not None
        period = parse_period(
            args.period,
            ctx.today,
            self._dates,
            default=self._view.default_period,
            hemisphere=hemisphere(ctx),
        )
        dictionary = await ctx.dictionary()
        field = field_by_name(args.field, dictionary) if args.field else None
        field_id = field.canonical_id if field is not None else None
        limit = self._view.lines
        async with ctx.db.read() as session:
            rows, total = await farm_repo.journal_page(
                session, ctx.farm_id, period.start, period.end, field_id=field_id, limit=limit
            )
            names = await field_names(session, ctx.farm_id) if rows or field_id else {}
            waiting = await waiting_of(ctx, session, rows)
            # The report button names the field by its row (a field id holds a ":").
            more = total > len(rows)
            field_row = await _field_row(session, ctx.farm_id, field_id) if more else None
        start, end = long_date(period.start), long_date(period.end)
        # The field by the farm's name, never its id.
        where = (
            ctx.text_of("compose.journal.on_field", field=field_label(ctx, names, field_id))
            if field_id is not None
            else ""
        )
        if not rows:
            text = ctx.text_of("compose.journal.none", start=start, end=end, where=where)
            return ToolResult("journal_entries", text)
        entries = ctx.catalog.plural(ctx.lang, "plural.operations", total)
        lines = [
            ctx.text_of("compose.journal.header", start=start, end=end, where=where, count=entries)
        ]
        lines += [self._line(ctx, row, names, waiting, dictionary) for row in rows]
        if total > len(rows):
            lines.append(ctx.text_of("compose.journal.more", count=total - len(rows)))
            # The workbook of this very listing: its days, its field (not this month's).
            # A field known by name only (no row) gets no button: no workbook of it alone.
            button = (
                report_button(ctx.texts, period.start, period.end, field_row)
                if field_id is None or field_row is not None
                else None
            )
            if button is not None and not ctx.artifacts.buttons:
                ctx.artifacts.buttons = ((button,),)
        _add_entry_buttons(ctx, rows)
        return ToolResult("journal_entries", "\n".join(lines))

    def _line(
        self,
        ctx: RunContext,
        row: OperationRow,
        names: dict[str, str],
        waiting: dict[int, str],
        dictionary: Dictionary,
    ) -> str:
        name = crop_label(dictionary, row.crop_id, ctx.lang)
        crop = ctx.text_of("compose.journal.crop", crop=name) if name else ""
        planned = ctx.text_of("compose.journal.planned") if row.status == "planned" else ""
        return ctx.text_of(
            "compose.journal.item",
            date=short_date(row.op_date),
            field=field_label(
                ctx, names, row.field_id, waiting=waiting, term_id=row.pending_term_id
            ),
            operation=op_label(ctx.texts, row.op_type),
            crop=crop,
            amount=_amount(ctx, row),
            planned=planned,
        )


async def _field_row(session: Session, farm_id: str, field_id: str | None) -> int | None:
    if field_id is None:
        return None
    rows = await farm_repo.fields(session, farm_id)
    return next((row.id for row in rows if row.field_id == field_id), None)


def _amount(ctx: RunContext, row: OperationRow) -> str:
    """The amount as the card showed it (a dose of 0,25 л/га stays 0,25), then the
    product."""
    parts: list[str] = []
    if row.quantity is not None:
        parts.append(quantity_text(ctx.texts, row.quantity, row.unit))
    if row.product:
        parts.append(row.product)
    return (", " + ", ".join(parts)) if parts else ""


def _add_entry_buttons(ctx: RunContext, rows: Sequence[OperationRow]) -> None:
    """Each entry listed, a tap away from its card (🗑, ✅ planned, 🕘): "✏️ 15.05
    Обприскування", two a row, after the report button (none under a journal card)."""
    if ctx.artifacts.card_text:
        return
    buttons = [
        Button(
            ctx.text_of(
                "journal_edit.entry_button",
                date=short_date(row.op_date),
                operation=op_label(ctx.texts, row.op_type),
            ),
            EntryAction(EntryVerb.SHOW, row.id),
        )
        for row in rows
    ]
    pairs = tuple(tuple(buttons[i : i + 2]) for i in range(0, len(buttons), 2))
    ctx.artifacts.buttons = (*ctx.artifacts.buttons, *pairs)
