"""A point tells its timezone and its oblast offline (docs/weather.md): the packaged
timezone boundaries and the nearest oblast centre of rules/knowledge/zones.toml."""

from __future__ import annotations

import pytest
from timezonefinder import TimezoneFinder

from pipeline.language.texts import Texts
from pipeline.weather.geo import Locator, Point, cell_of, cell_point, point_text
from tests.shared import catalog, rulebook

LOCATOR = Locator(TimezoneFinder(), rulebook().knowledge.data.regions)


@pytest.mark.parametrize(
    ("lat", "lon", "zone", "oblast"),
    [
        (49.5883, 34.5514, "Europe/Kyiv", "poltava"),  # Poltava
        (50.4501, 30.5234, "Europe/Kyiv", "kyiv"),  # Kyiv city: its oblast's fields
        (46.4825, 30.7233, "Europe/Kyiv", "odesa"),
        (48.6208, 22.2879, "Europe/Kyiv", "zakarpattia"),  # Uzhhorod
        (48.4647, 35.0462, "Europe/Kyiv", "dnipropetrovsk"),  # Dnipro
        (49.8397, 24.0297, "Europe/Kyiv", "lviv"),
        (51.4982, 31.2893, "Europe/Kyiv", "chernihiv"),
        (49.2331, 28.4682, "Europe/Kyiv", "vinnytsia"),
        (44.9521, 34.1024, "Europe/Simferopol", "crimea"),
        (52.2297, 21.0122, "Europe/Warsaw", None),  # abroad: no oblast guessed
        (47.0105, 28.8638, "Europe/Chisinau", None),
    ],
)
def test_a_point_gives_its_timezone_and_oblast(
    lat: float, lon: float, zone: str, oblast: str | None
) -> None:
    point = Point(lat, lon)
    assert LOCATOR.timezone(point) == zone
    found = LOCATOR.oblast(point)
    assert (found.id if found is not None else None) == oblast


#: Every oblast's administrative centre (and Crimea's Simferopol).
CAPITALS = {
    "volyn": (50.7472, 25.3254), "rivne": (50.6199, 26.2516), "zhytomyr": (50.2547, 28.6587),
    "chernihiv": (51.4982, 31.2893), "kyiv": (50.4501, 30.5234), "lviv": (49.8397, 24.0297),
    "ternopil": (49.5535, 25.5948), "khmelnytskyi": (49.4229, 26.9871),
    "vinnytsia": (49.2331, 28.4682), "cherkasy": (49.4444, 32.0598),
    "poltava": (49.5883, 34.5514), "sumy": (50.9077, 34.7981), "kharkiv": (49.9935, 36.2304),
    "ivano_frankivsk": (48.9226, 24.7111), "chernivtsi": (48.2921, 25.9358),
    "zakarpattia": (48.6208, 22.2879), "kirovohrad": (48.5079, 32.2623),
    "dnipropetrovsk": (48.4647, 35.0462), "zaporizhzhia": (47.8388, 35.1396),
    "mykolaiv": (46.9750, 31.9946), "odesa": (46.4825, 30.7233), "kherson": (46.6354, 32.6169),
    "donetsk": (48.0159, 37.8028), "luhansk": (48.5740, 39.3078), "crimea": (44.9521, 34.1024),
}  # fmt: skip


def test_every_oblast_capital_is_placed_in_its_oblast() -> None:
    placed = {rid: LOCATOR.oblast(Point(*point)) for rid, point in CAPITALS.items()}
    assert {rid: found.id if found else None for rid, found in placed.items()} == {
        rid: rid for rid in CAPITALS
    }


def test_every_oblast_has_a_centre_and_the_cities_are_not_chosen_by_points() -> None:
    regions = rulebook().knowledge.data.regions
    assert all(region.centre is not None for region in regions.values())
    assert {rid for rid, region in regions.items() if not region.by_point} == {
        "kyiv_city",
        "sevastopol",
    }
    centre = LOCATOR.centre("poltava")
    assert centre is not None and LOCATOR.oblast(centre) is not None
    assert LOCATOR.centre("atlantis") is None and LOCATOR.centre(None) is None


def test_points_are_checked_and_snapped_to_cells() -> None:
    assert Point.checked(91, 0) is None and Point.checked(0, 181) is None
    assert Point.checked(float("nan"), 1) is None
    assert Point.checked(49.123456789, 34.1) == Point(49.12346, 34.1)
    assert cell_of(Point(49.5883, 34.5514)) == (4960, 3455)
    assert cell_of(Point(49.5749, 34.5249)) == (4955, 3450)
    assert cell_of(Point(-33.87, -151.21)) == (-3385, -15120)
    assert cell_point((4960, 3455)) == Point(49.6, 34.55)


def test_a_point_reads_in_the_language() -> None:
    point = Point(49.58834, 34.55142)
    assert point_text(Texts(catalog(), "uk"), point) == "49,588° пн. ш., 34,551° сх. д."
    assert point_text(Texts(catalog(), "en"), Point(-33.87, -151.21)) == "33.87° S, 151.21° W"
