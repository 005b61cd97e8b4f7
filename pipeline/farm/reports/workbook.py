"""The season's .xlsx: the operations journal, plan vs fact, sensor readings.

The workbook is streamed: the journal is read in keyset pages (each page its own
short transaction, see pipeline/farm/reports/keyset.py) and every page is written into its
sheet in a worker thread, so a season of a big farm neither holds the SQLite write
lock nor stalls the bot's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from db.repositories import reporting
from db.repositories.reporting import OperationRecord, ReadingRecord
from db.repositories.sensor_buckets import count_readings
from db.uow import Database
from pipeline.farm.journal.card import weather_line
from pipeline.farm.localtime import day_bounds, local_time
from pipeline.farm.reports import keyset as paging
from pipeline.farm.reports.changes_sheet import write_changes
from pipeline.farm.reports.labels import Labels
from pipeline.farm.reports.paging import read_ahead
from pipeline.farm.reports.plan_fact import (
    PlanFactRow,
    completion_pct,
    field_names,
    plan_fact_rows,
    waiting_fields,
)
from pipeline.farm.reports.sensor_sheet import write_aggregates
from pipeline.farm.reports.xlsx import ONE_DECIMAL, CellValue, Column, SheetWriter
from pipeline.farm.slugs import slug
from pipeline.farm.words.name_match import NameRules
from pipeline.language.texts import Texts

logger = logging.getLogger(__name__)

#: Beyond this many readings the sensor sheet holds hourly (or daily) aggregates
#: instead (``sensor_sheet``): Excel itself caps a sheet at 1,048,576 rows, and no
#: farmer scrolls past a few thousand anyway.
MAX_SENSOR_ROWS = 100_000


@dataclass(frozen=True, slots=True)
class Report:
    filename: str
    content: bytes
    rows: int  # operations written to the "Operations" sheet
    readings: int = 0  # sensor readings (or their aggregates) written

    @property
    def empty(self) -> bool:
        """Nothing of the period to show: no journal record, no reading. A farmer gets
        «за цей період записів немає», not a workbook of headers (issue 26 point 6)."""
        return self.rows == 0 and self.readings == 0


def period_text(start: date, end: date) -> str:
    """«25.11–01.12.2026»: the year once when both days share it; one day alone."""
    if start == end:
        return f"{end:%d.%m.%Y}"
    if start.year == end.year:
        return f"{start:%d.%m}–{end:%d.%m.%Y}"
    return f"{start:%d.%m.%Y}–{end:%d.%m.%Y}"


def report_filename(start: date, end: date, field_id: str | None = None) -> str:
    """``stepan_operations[_<field>]_<start>_<end>.xlsx``: sorts by period in a folder."""
    parts = ["stepan_operations"]
    if field_id is not None:
        field_slug = slug(field_id.rsplit(":", 1)[-1]) or slug(field_id)
        if field_slug:
            parts.append(field_slug)
    parts += [start.isoformat(), end.isoformat()]
    return "_".join(parts) + ".xlsx"


# --- Operations ------------------------------------------------------------------------


def _operation_columns(labels: Labels) -> list[Column]:
    return [
        Column(labels.text("col_date"), 12),
        Column(labels.text("col_field"), 24),
        Column(labels.text("col_crop"), 18),
        Column(labels.text("col_operation"), 20),
        Column(labels.text("col_product"), 24),
        Column(labels.text("col_rate"), 9),
        Column(labels.text("col_rate_unit"), 10),
        Column(labels.text("col_quantity"), 11),
        Column(labels.text("col_unit"), 9),
        Column(labels.text("col_area"), 11),
        Column(labels.text("col_yield"), 13),
        Column(labels.text("col_status"), 13),
        # A spraying's weather at its time: the application record (issue 27).
        Column(labels.text("col_weather"), 44),
    ]


def _amounts(op: OperationRecord) -> tuple[float | None, str | None, float | None, str | None]:
    """(rate, its unit, amount, its unit); a row written before they were kept apart
    has one quantity, a rate when its unit is per hectare (or mm of water)."""
    if any(v is not None for v in (op.rate, op.amount, op.area_ha, op.yield_t_ha)):
        return op.rate, op.rate_unit, op.amount, op.amount_unit
    if op.quantity is None or op.unit in ("ha", "t/ha"):
        return None, None, None, None
    if op.unit is not None and ("/" in op.unit or op.unit == "mm"):
        return op.quantity, op.unit, None, None
    return None, None, op.quantity, op.unit


def _operation_values(labels: Labels, op: OperationRecord) -> tuple[CellValue, ...]:
    rate, rate_unit, amount, amount_unit = _amounts(op)
    legacy = op.rate is None and op.amount is None and op.area_ha is None
    area = (
        op.area_ha
        if op.area_ha is not None
        else (op.quantity if legacy and op.unit == "ha" else None)
    )
    yield_ = op.yield_t_ha
    if yield_ is None and legacy and op.unit == "t/ha" and op.yield_t_ha is None:
        yield_ = op.quantity
    return (
        op.op_date,
        labels.field(op.field_id, op.pending_term_id),
        labels.crop(op.crop_id),
        labels.op(op.op_type),
        op.product,
        rate,
        labels.unit(rate_unit),
        amount,
        labels.unit(amount_unit),
        area,
        yield_,
        labels.status(op.status),
        weather_line(labels.texts, op.weather) if op.weather else None,
    )


def _write_operation_page(
    writer: SheetWriter, labels: Labels, page: Sequence[OperationRecord]
) -> int:
    return writer.write_rows(_operation_values(labels, op) for op in page)


async def _write_operations(
    writer: SheetWriter,
    db: Database,
    labels: Labels,
    farm_id: str,
    period: tuple[date, date],
    field_id: str | None,
) -> int:
    writer.begin_sheet(labels.text("sheet_operations"), _operation_columns(labels))
    written = 0
    pages = paging.iter_operations(db, farm_id, period[0], period[1], field_id=field_id)
    async with contextlib.aclosing(read_ahead(pages)) as ahead:
        async for page in ahead:
            # Writing cells is CPU work: off the event loop, one page at a time.
            written += await asyncio.to_thread(_write_operation_page, writer, labels, page)
    writer.end_sheet()
    return written


# --- Plan vs fact ----------------------------------------------------------------------


def _write_plan_fact(writer: SheetWriter, labels: Labels, rows: Sequence[PlanFactRow]) -> None:
    writer.begin_sheet(
        labels.text("sheet_plan_fact"),
        [
            Column(labels.text("col_field"), 24),
            Column(labels.text("col_operation"), 20),
            Column(labels.text("col_planned"), 13),
            Column(labels.text("col_done"), 13),
            Column(labels.text("col_completion"), 14, ONE_DECIMAL),
        ],
    )
    writer.write_rows(
        (
            labels.field(row.field_id, row.pending_term_id),
            labels.op(row.op_type),
            row.planned,
            row.done,
            row.completion_pct,
        )
        for row in rows
    )
    if rows:
        planned = sum(row.planned for row in rows)
        matched = sum(row.matched for row in rows)
        done = sum(row.done for row in rows)
        total = (labels.text("total"), None, planned, done, completion_pct(matched, planned))
        writer.write_rows([total])
    writer.end_sheet()


# --- Sensors ---------------------------------------------------------------------------


def _sensor_values(labels: Labels, reading: ReadingRecord) -> tuple[CellValue, ...]:
    return (
        # The farm's clock; Excel has no timezones, so the cell is its wall time.
        local_time(reading.measured_at, labels.timezone).replace(tzinfo=None),
        labels.field(reading.field_id),
        reading.sensor_id,
        labels.sensor(reading.sensor_type),
        reading.value,
        reading.unit,
    )


def _write_reading_page(writer: SheetWriter, labels: Labels, page: Sequence[ReadingRecord]) -> int:
    return writer.write_rows(_sensor_values(labels, reading) for reading in page)


def _sensor_columns(labels: Labels) -> list[Column]:
    return [
        Column(labels.text("col_time"), 17),
        Column(labels.text("col_field"), 24),
        Column(labels.text("col_sensor"), 18),
        Column(labels.text("col_type"), 20),
        Column(labels.text("col_value"), 10),
        Column(labels.text("col_unit"), 9),
    ]


async def _write_readings_of_type(
    writer: SheetWriter,
    db: Database,
    labels: Labels,
    query: tuple[str, str, datetime, datetime, str | None],
    room: int,
) -> tuple[int, bool]:
    """Rows written for one sensor type, and whether readings were left out."""
    farm_id, sensor_type, since, until, field_id = query
    pages = paging.iter_readings(
        db, farm_id, sensor_type, since=since, until=until, field_id=field_id
    )
    written = 0
    async with contextlib.aclosing(read_ahead(pages)) as ahead:
        async for page in ahead:
            chunk = page[: room - written]
            written += await asyncio.to_thread(_write_reading_page, writer, labels, chunk)
            if len(chunk) < len(page):
                return written, True
    return written, False


async def _write_sensors(
    writer: SheetWriter,
    db: Database,
    labels: Labels,
    query: tuple[str, tuple[date, date], str | None],
    max_rows: int,
) -> int:
    """Readings of the report's days (the farm's), type by type so each query follows the
    (farm, type, time) index; more than ``max_rows`` of them: hourly (or daily)
    aggregates instead (``sensor_sheet``)."""
    farm_id, period, field_id = query
    since, until = day_bounds(period[0], period[1], labels.timezone)
    async with db.read() as session:
        count = await count_readings(session, farm_id, since=since, until=until, field_id=field_id)
    if count > max_rows:
        # Too many to list: hourly (or daily) aggregates, said so in the first row.
        return await write_aggregates(
            writer,
            db,
            labels,
            (farm_id, since, until, field_id),
            readings=count,
            max_rows=max_rows,
        )
    writer.begin_sheet(labels.text("sheet_sensors"), _sensor_columns(labels))
    written = 0
    async with db.read() as session:
        types = await reporting.sensor_types(session, farm_id, since=since, until=until)
    for sensor_type in types:
        count, truncated = await _write_readings_of_type(
            writer,
            db,
            labels,
            (farm_id, sensor_type, since, until, field_id),
            max_rows - written,
        )
        written += count
        if truncated:
            logger.info("reports: sensor sheet of %s capped at %d rows", farm_id, written)
            writer.write_rows([(labels.text("sensors_truncated", shown=written),)])
            break
    writer.end_sheet()
    return written


# --- The workbook ----------------------------------------------------------------------


async def build_operations_workbook(
    db: Database,
    farm_id: str,
    start: date,
    end: date,
    *,
    texts: Texts,
    field_id: str | None = None,
    max_sensor_rows: int = MAX_SENSOR_ROWS,
    shared_crops: Mapping[str, str] | None = None,
    name_rules: NameRules | None = None,
) -> Report:
    """An .xlsx of the farm's operations dated ``start``..``end`` (inclusive), their
    plan vs fact, and the sensor readings of the same days (the farm's), optionally for one
    field. An empty period still gives a valid workbook with headers. ``name_rules``
    name a field the farmer wrote that waits for an operator as it is called."""
    async with db.read() as session:
        names = await field_names(session, farm_id)
        crop_names = await reporting.crop_names(session, farm_id)
        counts = await reporting.plan_fact_counts(session, farm_id, start, end, field_id=field_id)
        timezone = await reporting.farm_timezone(session, farm_id)
        waiting = await waiting_fields(session, farm_id, name_rules)
    labels = Labels(texts, names, crop_names, shared_crops, timezone=timezone, waiting=waiting)
    plan_fact = plan_fact_rows(counts, names, waiting)
    buffer = io.BytesIO()
    writer = SheetWriter(buffer)
    period = (start, end)
    try:
        rows = await _write_operations(writer, db, labels, farm_id, period, field_id)
        _write_plan_fact(writer, labels, plan_fact)
        if field_id is None:
            # How the journal came to be: who wrote, changed, deleted what (issue 26).
            await write_changes(writer, db, labels, farm_id, period)
        readings = await _write_sensors(
            writer, db, labels, (farm_id, period, field_id), max_sensor_rows
        )
    except BaseException:
        # XlsxWriter removes the sheets' temporary files only when it closes the
        # package: close it on the way out too, so a failed report leaves nothing.
        with contextlib.suppress(Exception):
            writer.close()
        raise
    await asyncio.to_thread(writer.close)
    logger.info(
        "reports: workbook for %s %s..%s: %d operations, %d readings, %d bytes",
        farm_id,
        start,
        end,
        rows,
        readings,
        buffer.tell(),
    )
    return Report(report_filename(start, end, field_id), buffer.getvalue(), rows, readings)
