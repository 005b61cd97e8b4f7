"""A field's area said in words: «поле 3 — 85 га», «Північне 120 га», «площа поля 5:
40,5 гектара», several at once («поле 3 — 85 га, поле 5 — 40 га»).

A message is read as areas only when every part of it is "<field name> <number>
<area unit>" (the area units are the unit table's, ``[units] area`` of
``operations.toml``), so an operation ("обробили 40 га на полі 3") is never taken for
one. Onboarding reads its fields answer with the same grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.words.units import Units
from pipeline.text import tokenize

#: "<name> [—:=-] <number> <unit>": the number and the unit word close the part.
_PART = re.compile(
    r"^(?P<name>.*?\S)\s*[—–:=-]?\s*(?P<number>\d+(?:[.,]\d+)?)\s*(?P<unit>[^\W\d]+)\.?$"
)
#: Words that only announce the area («площа поля 5», "area of field 3").
#: Parts of a message: a comma before a space (not the decimal comma), ";", a line
#: break, "і"/"та"/"and".
_SPLIT = re.compile(r"[;\n]+|,\s+|\s+(?:і|й|та|и|and)\s+")
_LEAD = ("площа", "площею", "площадь", "area", "size")
_TAIL = ("має", "має площу", "is", "has", "це")
MAX_AREA_HA = 100_000.0


@dataclass(frozen=True, slots=True)
class FieldArea:
    name: str  # the farm's name of the field, else as written (without the words around)
    field_id: str | None  # the farm's field, None when the farm has no such field
    area_ha: float


def name_and_area(part: str, units: Units) -> tuple[str, float] | None:
    """ "Поле 3 — 85 га" -> ("Поле 3", 85.0); None when ``part`` is not a name with an area."""
    found = _PART.match(part.strip())
    if found is None:
        return None
    unit = tokenize(found["unit"])
    if len(unit) != 1 or unit[0] not in units.area:
        return None
    name = found["name"].strip(" —–:=-")
    for lead in _LEAD:
        if name.lower().startswith(lead + " "):
            name = name[len(lead) :].strip(" —–:=-")
    for tail in _TAIL:
        if name.lower().endswith(" " + tail):
            name = name[: -len(tail)].strip(" —–:=-")
    area = float(found["number"].replace(",", "."))
    if not name or not 0 < area <= MAX_AREA_HA:
        return None
    return name, area


def field_parts(text: str) -> list[str]:
    """ "Поле 3 — 85,5 га, Північне 40 га і Гора" -> the three parts (a decimal comma stays)."""
    return [part.strip(" .") for part in _SPLIT.split(text.strip()) if part.strip(" .")]


def read_areas(text: str, units: Units, dictionary: Dictionary) -> list[FieldArea]:
    """The areas ``text`` gives, or [] unless the whole message is areas of fields."""
    parts = field_parts(text)
    found: list[FieldArea] = []
    if not parts:
        return []
    for part in parts:
        named = name_and_area(part, units)
        if named is None:
            return []
        name, area = named
        entry = dictionary.resolve("field", name)
        if entry is None:
            found.append(FieldArea(name, None, area))
        else:
            found.append(FieldArea(entry.display, entry.canonical_id, area))
    return found
