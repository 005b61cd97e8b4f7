"""Points on the map (docs/weather.md): a farm's or a field's, the cell its forecast
is cached under, and what a point tells offline: its timezone (timezonefinder's
packaged boundaries) and, in Ukraine, its oblast (the nearest oblast centre of
rules/knowledge/zones.toml)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from pipeline.knowledge.model import Region
from pipeline.language.texts import Texts

__all__ = ["UKRAINE_ZONES", "Locator", "Point", "cell_of", "cell_point", "point_text"]

#: The IANA zones whose area is Ukraine's (the old names too): a point in any other
#: is abroad, and no oblast is guessed for it.
UKRAINE_ZONES = frozenset(
    {"Europe/Kyiv", "Europe/Kiev", "Europe/Simferopol", "Europe/Uzhgorod", "Europe/Zaporozhye"}
)
#: An oblast centre farther than this is not the point's oblast (the widest oblast,
#: Odesa's, reaches ~250 km from its centre).
MAX_CENTRE_KM = 300.0
#: Forecast cells are 0.05 degrees (~5.5 km north-south): finer than the weather
#: models' grids over Ukraine (ICON-EU ~7 km, ECMWF IFS ~9 km), so two fields of a
#: farm a few kilometres apart share a forecast only where the models would anyway.
CELL_E2 = 5


@dataclass(frozen=True, slots=True)
class Point:
    latitude: float
    longitude: float

    @classmethod
    def checked(cls, latitude: float, longitude: float) -> Point | None:
        """A point if these are WGS84 degrees (finite, within range), else None."""
        if not (math.isfinite(latitude) and math.isfinite(longitude)):
            return None
        if not (-90.0 <= latitude <= 90.0 and -180.0 <= longitude <= 180.0):
            return None
        return cls(round(latitude, 5), round(longitude, 5))


def point_text(texts: Texts, point: Point) -> str:
    """«49,591° пн. ш., 34,551° сх. д.»: three decimals (about 100 m) as the language
    writes them."""
    lat, lon = point.latitude, point.longitude
    north = texts.text(
        "geo.north" if lat >= 0 else "geo.south", value=texts.number(round(abs(lat), 3))
    )
    east = texts.text(
        "geo.east" if lon >= 0 else "geo.west", value=texts.number(round(abs(lon), 3))
    )
    return texts.text("geo.point", latitude=north, longitude=east)


def cell_of(point: Point) -> tuple[int, int]:
    """The cache cell of ``point``: its degrees in hundredths, on the 0.05 grid."""

    def snap(value: float) -> int:
        return round(value * 100 / CELL_E2) * CELL_E2

    return snap(point.latitude), snap(point.longitude)


def cell_point(cell: tuple[int, int]) -> Point:
    """The point a cell's forecast is asked for (its centre)."""
    return Point(cell[0] / 100, cell[1] / 100)


def _km(a: Point, b: Point) -> float:
    # Equirectangular: within a country it is within a fraction of a percent.
    mean = math.radians((a.latitude + b.latitude) / 2)
    dx = math.radians(b.longitude - a.longitude) * math.cos(mean)
    dy = math.radians(b.latitude - a.latitude)
    return 6371.0 * math.hypot(dx, dy)


class _Zones(Protocol):
    def timezone_at(self, *, lng: float, lat: float) -> str | None: ...


class Locator:
    """What a point tells: built once in the factory (the timezone finder loads its
    data when built)."""

    def __init__(self, zones: _Zones, regions: Mapping[str, Region]) -> None:
        self._zones = zones
        self._regions = regions

    def timezone(self, point: Point) -> str | None:
        return self._zones.timezone_at(lng=point.longitude, lat=point.latitude)

    def oblast(self, point: Point, timezone: str | None = None) -> Region | None:
        """The oblast of a point in Ukraine (None abroad or far from every centre)."""
        zone = timezone if timezone is not None else self.timezone(point)
        if zone not in UKRAINE_ZONES:
            return None
        best: tuple[float, Region] | None = None
        for region in self._regions.values():
            if region.centre is None or not region.by_point:
                continue
            distance = _km(point, Point(*region.centre))
            if best is None or distance < best[0]:
                best = (distance, region)
        return best[1] if best is not None and best[0] <= MAX_CENTRE_KM else None

    def centre(self, region_id: str | None) -> Point | None:
        """The centre of oblast ``region_id`` (None for an unknown one)."""
        region = self._regions.get(region_id) if region_id else None
        return Point(*region.centre) if region is not None and region.centre else None
