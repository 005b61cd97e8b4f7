"""The workbook's sheet of changes: every write, edit, delete, restore and plan
marked done of the period's days, oldest first (issue 26 point 4). The operations
sheet holds the journal as it is now; this one, how it came to be."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from db.repositories import journal as journal_repo
from db.repositories.journal import Revision
from db.uow import Database
from pipeline.farm.localtime import day_bounds, local_time
from pipeline.farm.reports.labels import Labels
from pipeline.farm.reports.xlsx import CellValue, Column, SheetWriter

__all__ = ["write_changes"]

#: The columns a change line compares, in the order it names them.
_COMPARED = ("op_type", "field_id", "crop_id", "product", "rate", "amount", "area_ha",
             "yield_t_ha", "op_date", "status")  # fmt: skip


def _value(labels: Labels, column: str, values: Mapping[str, Any]) -> str:
    value = values.get(column)
    if value is None:
        return "—"
    if column == "field_id":
        return labels.field(str(value))
    if column == "op_type":
        return labels.op(str(value))
    if column == "crop_id":
        return labels.crop(str(value)) or "—"
    if column == "status":
        return labels.status(str(value))
    if column == "op_date":
        return date.fromisoformat(str(value)).strftime("%d.%m.%Y")
    unit_column = {"rate": "rate_unit", "amount": "amount_unit"}.get(column)
    unit = labels.unit(values.get(unit_column)) if unit_column else None
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{shown} {unit}".strip() if unit else shown


def _change(labels: Labels, revision: Revision) -> str:
    before, after = revision.before or {}, revision.after or {}
    if not (before and after):
        return ""
    parts = [
        f"{labels.text(f'change_{column}')}: {_value(labels, column, before)} → "
        f"{_value(labels, column, after)}"
        for column in _COMPARED
        if before.get(column) != after.get(column)
    ]
    return "; ".join(parts)


def _row(labels: Labels, revision: Revision, names: Mapping[str, str]) -> tuple[CellValue, ...]:
    shown = revision.after or revision.before or {}
    return (
        local_time(revision.created_at, labels.timezone).replace(tzinfo=None),
        names.get(revision.actor, revision.actor),
        labels.text(f"kind_{revision.kind}"),
        labels.op(str(shown.get("op_type", ""))),
        labels.field(shown.get("field_id")),
        _value(labels, "op_date", shown),
        _change(labels, revision),
    )


async def write_changes(
    writer: SheetWriter, db: Database, labels: Labels, farm_id: str, period: tuple[date, date]
) -> int:
    """The sheet; how many changes it lists."""
    since, until = day_bounds(period[0], period[1], labels.timezone)
    async with db.read() as session:
        revisions: Sequence[Revision] = await journal_repo.revisions_between(
            session, farm_id, since, until
        )
        names = await journal_repo.actor_names(session, {r.actor for r in revisions})
    writer.begin_sheet(
        labels.text("sheet_changes"),
        [
            Column(labels.text("col_when"), 17),
            Column(labels.text("col_who"), 18),
            Column(labels.text("col_what"), 16),
            Column(labels.text("col_operation"), 20),
            Column(labels.text("col_field"), 20),
            Column(labels.text("col_date"), 12),
            Column(labels.text("col_change"), 48),
        ],
    )
    written = writer.write_rows(_row(labels, revision, names) for revision in revisions)
    writer.end_sheet()
    return written
