"""Farms and fields on the map (docs/weather.md): a Telegram location sent alone is
asked about («the farm, or which field?»), and the answer sets the point. The farm's
point also gives its timezone and, when its region is unknown, its oblast."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from db.repositories import places as places_repo
from db.repositories.places import FarmPlace
from db.uow import Database
from pipeline.actions import LocationAction
from pipeline.knowledge.model import Region
from pipeline.language.texts import Texts
from pipeline.types import Button, Incoming, Reply
from pipeline.weather.geo import Locator, Point, point_text

__all__ = ["MAX_FIELD_BUTTONS", "FarmPlaces", "FarmSet", "point_text"]

logger = logging.getLogger(__name__)

#: Fields offered under a location, one a row (a farm of more is asked about its
#: first ones; the rest get their points from a location sent again).
MAX_FIELD_BUTTONS = 12
#: A point goes in a button as whole 1e-5 degrees (about a metre).
E5 = 100_000


class _Farms(Protocol):
    async def ensure_farm(self, user_id: str) -> str | None: ...

    async def update_farm(self, user_id: str, **changes: object) -> object | None: ...


@dataclass(frozen=True, slots=True)
class FarmSet:
    """What setting the farm's point changed."""

    timezone: str | None
    #: The oblast the point lies in, when the farm had none (now its region).
    region: Region | None


class FarmPlaces:
    def __init__(self, db: Database, locator: Locator, farms: _Farms) -> None:
        self._db = db
        self._locator = locator
        self._farms = farms

    @property
    def locator(self) -> Locator:
        return self._locator

    async def place(self, user_id: str) -> FarmPlace | None:
        async with self._db.read() as session:
            return await places_repo.farm_place(session, user_id)

    async def ask(self, incoming: Incoming, point: Point, texts: Texts) -> Reply:
        """The question under a location sent alone: the farm, or which field?"""
        place = await self.place(incoming.user_id)
        lat, lon = round(point.latitude * E5), round(point.longitude * E5)
        owner = incoming.user_id
        rows: list[tuple[Button, ...]] = [
            (Button(texts.text("location.farm_button"), LocationAction(owner, lat, lon)),)
        ]
        for item in (place.fields if place is not None else ())[:MAX_FIELD_BUTTONS]:
            label = texts.text("location.field_button", name=item.name)
            rows.append((Button(label, LocationAction(owner, lat, lon, item.row_id)),))
        text = texts.text("location.ask", point=point_text(texts, point))
        return Reply(text, buttons=tuple(rows))

    async def set_farm(self, user_id: str, point: Point) -> FarmSet | None:
        """The farm's point (the farm made if missing), its timezone, and its oblast
        if it had none; None when the store failed."""
        farm_id = await self._farms.ensure_farm(user_id)
        if farm_id is None:
            return None
        zone = self._locator.timezone(point)
        oblast = self._locator.oblast(point, zone)
        async with self._db.write() as session:
            before = await places_repo.farm_place(session, user_id)
            new_region = oblast if oblast is not None and before and before.region is None else None
            await places_repo.set_farm_point(
                session,
                farm_id,
                point.latitude,
                point.longitude,
                timezone=None,
                region=new_region.id if new_region is not None else None,
            )
        changes: dict[str, object] = {}
        if zone is not None and (before is None or before.timezone != zone):
            changes["timezone"] = zone
        if new_region is not None:
            changes["region"] = new_region.id
        if changes:
            # Through the profile editor: the cached profile and its copy follow.
            await self._farms.update_farm(user_id, **changes)
        return FarmSet(zone, new_region)

    async def set_field(self, user_id: str, row_id: int, point: Point) -> str | None:
        """Field ``row_id``'s point, if it is a field of the presser's farm; its name."""
        async with self._db.write() as session:
            place = await places_repo.farm_place(session, user_id)
            item = next((f for f in place.fields if f.row_id == row_id), None) if place else None
            if place is None or item is None:
                return None
            await places_repo.set_field_point(
                session, place.farm_id, row_id, point.latitude, point.longitude
            )
        return item.name
