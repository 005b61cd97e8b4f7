"""Large reads for reports and charts, one keyset page per short read transaction.

On SQLite every transaction holds the write lock (BEGIN IMMEDIATE, db/engine.py),
so a season's journal or months of readings read in one transaction would stall the
journal writers for all of it; a page at a time costs them one page at most.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import date, datetime
from typing import TypeVar

from db.repositories import reporting
from db.repositories.reporting import (
    PAGE_SIZE,
    OperationCursor,
    OperationRecord,
    ReadingCursor,
    ReadingRecord,
)
from db.uow import Database, Session

Row = TypeVar("Row")
Cursor = TypeVar("Cursor")


async def _pages(
    db: Database,
    fetch: Callable[[Session, Cursor | None], Awaitable[list[Row]]],
    cursor_of: Callable[[Row], Cursor],
    page_size: int,
) -> AsyncIterator[list[Row]]:
    """Keyset pages of ``fetch``, each in a read of its own (no empty pages)."""
    after: Cursor | None = None
    while True:
        async with db.read() as session:
            page = await fetch(session, after)
        if page:
            yield page
        if len(page) < page_size:
            return
        after = cursor_of(page[-1])


def iter_operations(
    db: Database,
    farm_id: str,
    start: date,
    end: date,
    *,
    field_id: str | None = None,
    page_size: int = PAGE_SIZE,
) -> AsyncIterator[list[OperationRecord]]:
    """Operations dated ``start``..``end`` in pages, by date then id (no empty pages)."""

    async def fetch(session: Session, after: OperationCursor | None) -> list[OperationRecord]:
        return await reporting.operations_page(
            session, farm_id, start, end, field_id=field_id, after=after, limit=page_size
        )

    return _pages(db, fetch, lambda row: (row.op_date, row.id), page_size)


def iter_readings(
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

    async def fetch(session: Session, after: ReadingCursor | None) -> list[ReadingRecord]:
        return await reporting.readings_page(
            session,
            farm_id,
            sensor_type,
            since=since,
            until=until,
            field_id=field_id,
            after=after,
            limit=page_size,
        )

    return _pages(db, fetch, lambda row: (row.measured_at, row.id), page_size)


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
