"""The names a farmer reads for the ids Stepan keeps: «Північне» for ``field:pivnichne``,
«соняшник» (or "Sunflower" in English) for ``crop:sunflower``.

Profiles hold ids, which never change when a name does (AGENT-PLAN); everything a
farmer reads shows the farm's own names instead (issue 11 point 6, issue 12 point 7).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from db.repositories import farm as farm_repo
from db.repositories import places as places_repo
from db.uow import Database
from pipeline.farm.dictionary import Dictionary, Vocabulary
from pipeline.farm.journal.card import crop_label
from pipeline.farm.journal.farm_words import farm_dictionary
from pipeline.knowledge.model import Region
from pipeline.profiles import FarmProfile
from pipeline.text import capitalised
from pipeline.types import Language

logger = logging.getLogger(__name__)


def readable_id(value: str) -> str:
    """The last resort for an id nothing names: its slug as words, never ``kind:…``."""
    _, sep, rest = value.partition(":")
    words = (rest if sep else value).replace("-", " ").replace("_", " ").strip()
    return words or value


@dataclass(frozen=True, slots=True)
class FarmNames:
    """Field and crop ids of one farm -> the names its farmer uses."""

    fields: Mapping[str, str] = field(default_factory=dict)
    crops: Mapping[str, str] = field(default_factory=dict)
    #: The farm's oblast by name (onboarding, ``/farm update region=``), if known.
    region: str | None = None
    #: The farm's point and its fields' by field id (docs/weather.md), if set.
    point: tuple[float, float] | None = None
    field_points: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def field(self, field_id: str) -> str:
        return self.fields.get(field_id) or readable_id(field_id)

    def crop(self, crop_id: str) -> str:
        return capitalised(self.crops.get(crop_id) or readable_id(crop_id))

    def field_list(self, ids: Iterable[str]) -> list[str]:
        """Distinct names, in the order the farm has them."""
        return list(dict.fromkeys(self.field(item) for item in ids))

    def crop_list(self, ids: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(self.crop(item) for item in ids))


class NameBook:
    """Reads a farm's names (its fields, crops and approved terms, the shared crops)
    for the cards people read (/me, operators' /farm). One short read per card."""

    def __init__(
        self,
        db: Database,
        vocabulary: Vocabulary,
        regions: Mapping[str, Region] | None = None,
    ) -> None:
        self._db = db
        self._vocabulary = vocabulary
        #: The oblasts by id (pipeline/rules/knowledge/zones.toml), for their names.
        self._regions = regions or {}

    async def of(self, farm: FarmProfile, lang: Language) -> FarmNames:
        """Never raises: with the database down the shared crops still name crops and
        ids are shown as words."""
        region_id, place = None, None
        try:
            async with self._db.read() as session:
                dictionary = await farm_dictionary(session, farm.farm_id, self._vocabulary)
                region_id = await farm_repo.region_of_farm(session, farm.farm_id)
                place = await places_repo.farm_place(session, farm.user_id)
        except Exception:
            logger.warning("names: farm dictionary unavailable farm=%s", farm.farm_id)
            dictionary = self._vocabulary.shared()
        names = names_in(farm, dictionary, lang)
        region = self._regions.get(region_id) if region_id else None
        if region is not None:
            names = replace(names, region=region.name.get(lang))
        return _with_points(names, place)


def _with_points(names: FarmNames, place: places_repo.FarmPlace | None) -> FarmNames:
    if place is None:
        return names
    lat, lon = place.latitude, place.longitude
    point = (lat, lon) if lat is not None and lon is not None else None
    fields = {
        item.field_id: (item.latitude, item.longitude)
        for item in place.fields
        if item.latitude is not None and item.longitude is not None
    }
    return replace(names, point=point, field_points=fields)


def names_in(farm: FarmProfile, dictionary: Dictionary, lang: Language) -> FarmNames:
    """The names the farm's dictionary gives its field and crop ids."""
    fields = {
        item: entry.display
        for item in farm.field_ids
        if (entry := dictionary.get(item)) is not None
    }
    crops = {item: label for item in farm.crop_ids if (label := crop_label(dictionary, item, lang))}
    return FarmNames(fields, crops)
