"""Where farms and fields are (docs/weather.md): the points set from Telegram
locations, read and written as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmProfileRow, FieldRow, UserProfileRow

__all__ = [
    "ActivePlaces",
    "FarmPlace",
    "FieldPlace",
    "Recipient",
    "active_places",
    "active_recipients",
    "farm_place",
    "set_farm_point",
    "set_field_point",
]


@dataclass(frozen=True, slots=True)
class FieldPlace:
    row_id: int
    field_id: str
    name: str
    latitude: float | None
    longitude: float | None


@dataclass(frozen=True, slots=True)
class FarmPlace:
    farm_id: str
    latitude: float | None
    longitude: float | None
    region: str | None
    timezone: str
    fields: tuple[FieldPlace, ...] = ()


async def farm_place(session: AsyncSession, user_id: str) -> FarmPlace | None:
    """The farm ``user_id`` owns, its point and its fields' (None without a farm)."""
    farm = (
        await session.execute(
            select(
                FarmProfileRow.farm_id,
                FarmProfileRow.latitude,
                FarmProfileRow.longitude,
                FarmProfileRow.region,
                FarmProfileRow.timezone,
            ).where(FarmProfileRow.user_id == user_id)
        )
    ).one_or_none()
    if farm is None:
        return None
    rows = await session.execute(
        select(FieldRow.id, FieldRow.field_id, FieldRow.name, FieldRow.latitude, FieldRow.longitude)
        .where(FieldRow.farm_id == farm.farm_id)
        .order_by(FieldRow.id)
    )
    fields = tuple(FieldPlace(*row) for row in rows)
    return FarmPlace(
        farm.farm_id, farm.latitude, farm.longitude, farm.region, farm.timezone, fields
    )


async def set_farm_point(
    session: AsyncSession,
    farm_id: str,
    latitude: float,
    longitude: float,
    *,
    timezone: str | None,
    region: str | None,
) -> None:
    """The farm's point; its timezone when one is known; its region only when it has
    none (an oblast the farmer or an operator chose stays)."""
    values: dict[str, object] = {"latitude": latitude, "longitude": longitude}
    if timezone is not None:
        values["timezone"] = timezone
    await session.execute(
        update(FarmProfileRow).where(FarmProfileRow.farm_id == farm_id).values(**values)
    )
    if region is not None:
        await session.execute(
            update(FarmProfileRow)
            .where(FarmProfileRow.farm_id == farm_id, FarmProfileRow.region.is_(None))
            .values(region=region)
        )


async def set_field_point(
    session: AsyncSession, farm_id: str, row_id: int, latitude: float, longitude: float
) -> bool:
    """The point of field ``row_id`` of farm ``farm_id``; False when the farm has no
    such field (a forged or stale button)."""
    result = await session.execute(
        update(FieldRow)
        .where(FieldRow.id == row_id, FieldRow.farm_id == farm_id)
        .values(latitude=latitude, longitude=longitude)
    )
    return bool(getattr(result, "rowcount", 0))


@dataclass(frozen=True, slots=True)
class ActivePlaces:
    """The points of farms whose farmer was seen since a time: the farms' own, their
    fields', and the oblast of each farm that has no point."""

    points: tuple[tuple[float, float], ...]
    regions: tuple[str, ...]


async def active_places(session: AsyncSession, since: datetime) -> ActivePlaces:
    active = (
        select(FarmProfileRow.farm_id)
        .join(UserProfileRow, UserProfileRow.user_id == FarmProfileRow.user_id)
        .where(UserProfileRow.active.is_(True), UserProfileRow.last_seen >= since)
    )
    farms = (
        await session.execute(
            select(FarmProfileRow.latitude, FarmProfileRow.longitude, FarmProfileRow.region).where(
                FarmProfileRow.farm_id.in_(active)
            )
        )
    ).all()
    fields = (
        await session.execute(
            select(FieldRow.latitude, FieldRow.longitude).where(
                FieldRow.farm_id.in_(active), FieldRow.latitude.is_not(None)
            )
        )
    ).all()
    points = [(lat, lon) for lat, lon, _ in farms if lat is not None and lon is not None]
    points += [(lat, lon) for lat, lon in fields if lat is not None and lon is not None]
    regions = sorted({region for lat, _, region in farms if lat is None and region})
    return ActivePlaces(tuple(points), tuple(regions))


@dataclass(frozen=True, slots=True)
class Recipient:
    """An active farmer to warn: their farm, where it is, its clock, their language."""

    user_id: str
    farm_id: str
    latitude: float | None
    longitude: float | None
    region: str | None
    timezone: str
    language: str


async def active_recipients(session: AsyncSession, since: datetime) -> list[Recipient]:
    """The farms of farmers seen since ``since`` who have not blocked the bot nor turned
    the weather warnings off, and whose farm has a point or an oblast."""
    rows = await session.execute(
        select(
            FarmProfileRow.user_id,
            FarmProfileRow.farm_id,
            FarmProfileRow.latitude,
            FarmProfileRow.longitude,
            FarmProfileRow.region,
            FarmProfileRow.timezone,
            UserProfileRow.preferred_language,
        )
        .select_from(UserProfileRow)
        .join(FarmProfileRow, FarmProfileRow.user_id == UserProfileRow.user_id)
        .where(
            UserProfileRow.active.is_(True),
            UserProfileRow.last_seen >= since,
            UserProfileRow.weather_warnings.is_(True),
        )
    )
    found = [Recipient(*row) for row in rows]
    return [r for r in found if r.latitude is not None or r.region is not None]
