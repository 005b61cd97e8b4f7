"""Large reads for reports and charts, one keyset page per short read transaction.

On SQLite every transaction holds the write lock (BEGIN IMMEDIATE, db/engine.py),
so a season's journal or months of readings read in one transaction would stall the
journal writers for all of it; a page at a time costs them one page at most.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime

from db.repositories import reporting
from db.repositories.reporting import (
    PAGE_SIZE,
    OperationCursor,
    OperationRecord,
    ReadingCursor,
    ReadingRecord,
)
from db.uow import Database


async def iter_operations(
    db: Database,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
    page_size: int = PAGE_SIZE,
) -> AsyncIterator[list[OperationRecord]]:
    """Operations dated ``start``..``end`` in pages, by date then id (no empty pages)."""
    after: OperationCursor | None = None
    while True:
        async with db.read() as session:
            page = await reporting.operations_page(
                session, farm_id, start, end, field_id=field_id, after=after, limit=page_size
            )
        if page:
            yield page
        if len(page) < page_size:
            return
        after = (page[-1].op_date, page[-1].id)


async def iter_readings(
    db: Database,
    farm_id: str,
    sensor_type: str,
    *,
    since: datetime,
    until: datetime | None = None,
    field_id: str | None = None,
    page_size: int = PAGE_SIZE,
) -> AsyncIterator[list[ReadingRecord]]:
    """Readings of one type in ``since`` <= time < ``until`` in pages, by time then id."""
    after: ReadingCursor | None = None
    while True:
        async with db.read() as session:
            page = await reporting.readings_page(
                session,
                farm_id,
                sensor_type,
                since=since,
                until=until,
                field_id=field_id,
                after=after,
                limit=page_size,
            )
        if page:
            yield page
        if len(page) < page_size:
            return
        after = (page[-1].measured_at, page[-1].id)


async def sensor_readings(
    db: Database,
    farm_id: str,
    sensor_type: str,
    *,
    since: datetime,
    until: datetime | None = None,
    field_id: str | None = None,
) -> list[ReadingRecord]:
    """All readings of a type (optionally of one field) since a time, oldest first."""
    readings: list[ReadingRecord] = []
    async for page in iter_readings(
        db, farm_id, sensor_type, since=since, until=until, field_id=field_id
    ):
        readings.extend(page)
    return readings
