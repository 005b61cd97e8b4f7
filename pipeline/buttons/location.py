"""«🏠 Ферма» / «🌾 <field>» under a location sent alone (docs/weather.md): the point
becomes the farm's or the field's. Only the farmer who sent it may place their farm
with it; a field must be one of the presser's own farm."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.actions import LocationAction
from pipeline.buttons.press import Press
from pipeline.types import Reply, Shown
from pipeline.weather.geo import Point
from pipeline.weather.places import E5, FarmPlaces, point_text

__all__ = ["LocationButton"]


@dataclass(frozen=True, slots=True)
class LocationButton:
    places: FarmPlaces

    async def __call__(self, action: LocationAction, press: Press) -> Reply | None:
        texts, user_id = press.texts, press.incoming.user_id
        if action.owner != user_id:
            # Another member of a group: told so; the question stays for its sender.
            return Reply(texts.text("location.not_yours"), shown=Shown.POPUP)
        point = Point.checked(action.latitude_e5 / E5, action.longitude_e5 / E5)
        if point is None:
            return None
        where = point_text(texts, point)
        if action.field_row is None:
            done = await self.places.set_farm(user_id, point)
            if done is None:
                return Reply(texts.text("faults.database"), shown=Shown.POPUP)
            lines = [texts.text("location.farm_set", point=where)]
            if done.timezone is not None:
                lines.append(texts.text("location.timezone", timezone=done.timezone))
            if done.region is not None:
                lines.append(texts.text("location.region", region=done.region.name.get(texts.lang)))
            return Reply("\n".join(lines), shown=Shown.EDIT)
        name = await self.places.set_field(user_id, action.field_row, point)
        if name is None:
            return None
        text = texts.text("location.field_set", name=name, point=where)
        return Reply(text, shown=Shown.EDIT)
