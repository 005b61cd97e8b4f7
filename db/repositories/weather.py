"""The forecast cache (docs/weather.md): Open-Meteo's hours per location cell, shared
by every instance; read and written as plain data."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import and_, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import WeatherHourRow, WeatherWarningRow
from db.repositories.profiles import dialect_insert, insert_ignore
from db.states import WeatherWarningKind

__all__ = [
    "Cell",
    "WeatherHour",
    "claim_warning",
    "fetched_cells",
    "hours",
    "prune",
    "recent_warnings",
    "release_warning",
    "store_hours",
]

#: A location cell: latitude and longitude in hundredths of a degree, on the 0.05 grid.
Cell = tuple[int, int]

_CELLS_PER_READ = 200
_FIGURES = (
    "temperature",
    "humidity",
    "precipitation",
    "precipitation_probability",
    "wind_speed",
    "soil_temperature",
)


@dataclass(frozen=True, slots=True)
class WeatherHour:
    """One forecast hour (UTC); a figure the source did not give is None."""

    hour: datetime
    temperature: float | None = None
    humidity: float | None = None
    precipitation: float | None = None
    precipitation_probability: float | None = None
    wind_speed: float | None = None
    soil_temperature: float | None = None


def _utc(value: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


async def store_hours(
    session: AsyncSession, cell: Cell, items: Sequence[WeatherHour], fetched_at: datetime
) -> int:
    """Insert the hours, or replace the cell's older forecast for them; returns how many."""
    if not items:
        return 0
    rows = [
        {
            "lat_e2": cell[0],
            "lon_e2": cell[1],
            "hour": _utc(item.hour),
            "fetched_at": fetched_at,
            **{name: getattr(item, name) for name in _FIGURES},
        }
        for item in items
    ]
    upsert = dialect_insert(session)(WeatherHourRow.__table__)
    new = upsert.excluded
    statement = upsert.on_conflict_do_update(
        index_elements=["lat_e2", "lon_e2", "hour"],
        set_={name: getattr(new, name) for name in (*_FIGURES, "fetched_at")},
    )
    await session.execute(statement, rows)
    return len(rows)


async def hours(
    session: AsyncSession, cell: Cell, start: datetime, end: datetime
) -> list[WeatherHour]:
    """The cell's hours from ``start`` up to (not including) ``end``, in order."""
    table = WeatherHourRow
    result = await session.execute(
        select(table.hour, *(getattr(table, name) for name in _FIGURES))
        .where(
            table.lat_e2 == cell[0],
            table.lon_e2 == cell[1],
            table.hour >= start,
            table.hour < end,
        )
        .order_by(table.hour)
    )
    return [WeatherHour(_utc(row[0]), *row[1:]) for row in result]


async def fetched_cells(session: AsyncSession, cells: Iterable[Cell], since: datetime) -> set[Cell]:
    """Which of ``cells`` got a forecast at ``since`` or later (each cell a range of
    the primary key; a few hundred a statement)."""
    wanted = list(dict.fromkeys(cells))
    table = WeatherHourRow
    found: set[Cell] = set()
    for start in range(0, len(wanted), _CELLS_PER_READ):
        chunk = wanted[start : start + _CELLS_PER_READ]
        result = await session.execute(
            select(table.lat_e2, table.lon_e2)
            .where(or_(*(and_(table.lat_e2 == lat, table.lon_e2 == lon) for lat, lon in chunk)))
            .group_by(table.lat_e2, table.lon_e2)
            .having(func.max(table.fetched_at) >= since)
        )
        found |= {(lat, lon) for lat, lon in result}
    return found


async def prune(session: AsyncSession, before: datetime) -> int:
    """Forget the hours before ``before``; returns how many rows went."""
    result = await session.execute(delete(WeatherHourRow).where(WeatherHourRow.hour < before))
    return int(getattr(result, "rowcount", 0) or 0)


async def claim_warning(
    session: AsyncSession, farm_id: str, kind: WeatherWarningKind, day: date, now: datetime
) -> bool:
    """Claim the farm's warning of ``kind`` for local ``day``: True for the one caller
    that inserted it (that caller sends it)."""
    values = {"farm_id": farm_id, "kind": kind, "day": day, "created_at": now}
    return await insert_ignore(session, WeatherWarningRow, values)


async def warned_on(
    session: AsyncSession, farm_id: str, kind: WeatherWarningKind, day: date
) -> bool:
    """A warning of ``kind`` was claimed for the farm's local ``day``."""
    found = await session.get(WeatherWarningRow, (farm_id, kind, day))
    return found is not None


async def recent_warnings(
    session: AsyncSession, farm_id: str, since: date
) -> list[tuple[str, date]]:
    """(kind, local day) of the farm's warnings claimed since ``since``, newest first."""
    rows = await session.execute(
        select(WeatherWarningRow.kind, WeatherWarningRow.day)
        .where(WeatherWarningRow.farm_id == farm_id, WeatherWarningRow.day >= since)
        .order_by(WeatherWarningRow.day.desc(), WeatherWarningRow.kind)
    )
    return [(str(kind), day) for kind, day in rows.all()]


async def release_warning(
    session: AsyncSession, farm_id: str, kind: WeatherWarningKind, day: date
) -> None:
    """The warning could not be sent: the next run tries again."""
    await session.execute(
        delete(WeatherWarningRow).where(
            WeatherWarningRow.farm_id == farm_id,
            WeatherWarningRow.kind == kind,
            WeatherWarningRow.day == day,
        )
    )
