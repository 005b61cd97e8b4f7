"""The workbook's sensor sheet for long periods: hourly (or daily) aggregates.

Up to ``max_rows`` readings the sheet lists every reading (``workbook``). Beyond
that it would have to stop part-way, so instead it holds one row per probe, type
and hour - min, mean, max and the number of readings - aggregated by the database
(``pipeline.farm.sensors.series``), and its first row says so. When even the hours
are too many, days; only if the days are too many too is the sheet cut, with a
note (a year of a thousand probes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from db.repositories import reporting
from db.repositories.sensor_buckets import count_buckets, unit_of
from db.uow import Database
from pipeline.farm.localtime import zone as zone_of
from pipeline.farm.reports.labels import Labels
from pipeline.farm.reports.xlsx import ONE_DECIMAL, CellValue, Column, SheetWriter
from pipeline.farm.sensors.series import DAY, Series, read_series

logger = logging.getLogger(__name__)

HOUR = 3_600
#: Each aggregate read covers this much time: one short transaction per slice.
SLICE = timedelta(days=7)

Query = tuple[str, datetime, datetime, str | None]  # farm, since, until, field


def aggregate_columns(labels: Labels) -> list[Column]:
    return [
        Column(labels.text("col_time"), 17),
        Column(labels.text("col_field"), 24),
        Column(labels.text("col_sensor"), 18),
        Column(labels.text("col_type"), 20),
        Column(labels.texts.text("sensor_sheet.col_min"), 10, ONE_DECIMAL),
        Column(labels.texts.text("sensor_sheet.col_mean"), 10, ONE_DECIMAL),
        Column(labels.texts.text("sensor_sheet.col_max"), 10, ONE_DECIMAL),
        Column(labels.texts.text("sensor_sheet.col_count"), 10),
        Column(labels.text("col_unit"), 9),
    ]


async def choose_width(db: Database, query: Query, max_rows: int) -> int:
    """Hours when their rows fit, else days."""
    farm_id, since, until, field_id = query
    async with db.read() as session:
        hourly = await count_buckets(
            session, farm_id, since=since, until=until, width=HOUR, field_id=field_id
        )
    return HOUR if hourly <= max_rows else DAY


def _rows(
    labels: Labels, sensor_type: str, unit: str, series: Sequence[Series]
) -> list[tuple[CellValue, ...]]:
    points = [(point, item) for item in series for point in item.points]
    points.sort(key=lambda pair: (pair[0].start, pair[1].field_id or "", pair[1].sensor_id or ""))
    return [
        (
            point.start,  # the farm's clock, as the raw sheet
            labels.field(item.field_id),
            item.sensor_id,
            labels.sensor(sensor_type),
            point.minimum,
            point.mean,
            point.maximum,
            point.count,
            unit,
        )
        for point, item in points
    ]


async def write_aggregates(
    writer: SheetWriter,
    db: Database,
    labels: Labels,
    query: Query,
    *,
    readings: int,
    max_rows: int,
) -> int:
    """The sensor sheet as aggregates; returns the readings they cover."""
    farm_id, since, until, field_id = query
    width = await choose_width(db, query, max_rows)
    writer.begin_sheet(labels.text("sheet_sensors"), aggregate_columns(labels))
    note = "sensor_sheet.hourly_note" if width == HOUR else "sensor_sheet.daily_note"
    writer.write_rows([(labels.texts.text(note, readings=readings, limit=max_rows),)])
    async with db.read() as session:
        types = await reporting.sensor_types(session, farm_id, since=since, until=until)
        units = {kind: await unit_of(session, farm_id, kind) for kind in types}
    written = covered = 0
    for sensor_type in types:
        start = since
        while start < until:
            end = min(start + SLICE, until)
            series = await read_series(
                db,
                farm_id,
                sensor_type,
                since=start,
                until=end,
                width=width,
                zone=zone_of(labels.timezone),
                field_id=field_id,
                by_sensor=True,
            )
            rows = _rows(labels, sensor_type, units.get(sensor_type, ""), series)
            room = max_rows - written
            written += await asyncio.to_thread(writer.write_rows, rows[:room])
            covered += sum(item.readings for item in series)
            if len(rows) > room:
                logger.info("reports: aggregated sensor sheet of %s capped", farm_id)
                writer.write_rows([(labels.text("sensors_truncated", shown=written),)])
                writer.end_sheet()
                return covered
            start = end
    writer.end_sheet()
    return covered
