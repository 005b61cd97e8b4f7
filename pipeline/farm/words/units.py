"""The one unit table (``[units]`` of ``pipeline/rules/operations.toml``).

The operation parser reads quantities with it ("1,5 л/га" is 1.5 l/ha, "45 ц/га" is
4.5 t/ha); the season summary reads the units stored with operations with it
("кг/га" is kg per hectare, "т" is 1000 kg, "м³" is a volume of water). Each
measure lists how it is written (in the term syntax of :mod:`pipeline.grammar`), its
canonical unit alone, per hectare and per tonne of seed, and the factor from what
was written to the canonical unit; ``[units.base]`` says how canonical units add up.
``[units.reference]`` lists units only reference data is written in (the knowledge
cards: °C, cm, seeds per hectare ...), which the operation parser never reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.grammar import Grammar, TermSet
from pipeline.text import tokenize

__all__ = ["Measure", "Unit", "Units"]


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure (litres, kilograms, millimetres ...) and its canonical units."""

    name: str
    alone: str | None
    per_area: str | None
    per_tonne: str | None
    #: Multiplies a written number into the canonical unit (45 ц is 4.5 t).
    factor: float
    #: With several quantities in one message the highest wins (a rate beats an area).
    priority: int
    #: Before another measure it multiplies that one ("2,5 тисячі тонн").
    scale: float | None = None

    @property
    def canonical(self) -> str | None:
        """The canonical unit of one of these, without "per" anything."""
        if self.alone is not None:
            return self.alone
        return self.per_area.partition("/")[0] if self.per_area else None


@dataclass(frozen=True, slots=True)
class Unit:
    """A stored unit in the base unit sums are made in ("т" is kg x 1000)."""

    base: str
    factor: float  # multiply a quantity by this to get ``base``
    per_ha: bool
    #: The measure it is written in ("mm", "m3" ...), None when unknown.
    measure: str | None = None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


class Units:
    """The unit table, compiled: which words name a measure, a hectare, a tonne."""

    def __init__(self, raw: Mapping[str, Any], grammar: Grammar) -> None:
        measures: Mapping[str, Any] = raw.get("measures", {})
        self.measures = TermSet.labelled(
            {name: _strings(spec.get("words")) for name, spec in measures.items()}, grammar
        )
        self.specs: Mapping[str, Measure] = {
            name: Measure(
                name=name,
                alone=spec.get("alone"),
                per_area=spec.get("per_area"),
                per_tonne=spec.get("per_tonne"),
                factor=float(spec.get("factor", 1.0)),
                priority=int(spec.get("priority", 1)),
                scale=float(spec["scale"]) if "scale" in spec else None,
            )
            for name, spec in measures.items()
        }
        self.per = TermSet.flat(_strings(raw.get("per")), "per", grammar)
        self.area = TermSet.flat(_strings(raw.get("area")), "area", grammar)
        self.tonne = TermSet.flat(_strings(raw.get("tonne")), "tonne", grammar)
        self.per_reach = int(raw.get("per_reach", 0))
        self.base: Mapping[str, tuple[str, float]] = {
            unit: (str(spec["base"]), float(spec["factor"]))
            for unit, spec in raw.get("base", {}).items()
        }
        reference: Mapping[str, Any] = raw.get("reference", {})
        self.reference = TermSet.labelled(
            {unit: _strings(spec.get("words")) for unit, spec in reference.items()}, grammar
        )
        canonical = {
            unit
            for spec in self.specs.values()
            for unit in (spec.alone, spec.per_area, spec.per_tonne)
            if unit is not None
        }
        #: Every unit a value may be written in: the measures' canonical units and
        #: the reference units.
        self.known: frozenset[str] = frozenset(canonical | set(reference))

    def reference_at(self, tokens: Sequence[str], i: int) -> tuple[str, int] | None:
        """The reference unit written from token ``i`` on ("градусів" is "C")."""
        return self.reference.match_at(tokens, i)

    def measure_at(self, tokens: Sequence[str], i: int) -> tuple[Measure, int] | None:
        """The measure written from token ``i`` on, and how many tokens it takes."""
        hit = self.measures.match_at(tokens, i)
        return (self.specs[hit[0]], hit[1]) if hit is not None else None

    def _measure_of(self, text: str) -> Measure | None:
        """The measure a whole unit name is written in ("кг", "м3", "літрів")."""
        tokens = tokenize(text)
        hit = self.measure_at(tokens, 0) if tokens else None
        return hit[0] if hit is not None and hit[1] == len(tokens) else None

    def parse(self, raw: str | None) -> Unit:
        """A stored unit as a base unit: "кг/га" is kg per ha; "т" is kg x 1000;
        anything unknown ("шт", "kg/m2") stays as written."""
        text = (raw or "").strip().lower().replace(" ", "").rstrip(".")
        numerator, _, denominator = text.partition("/")
        denominator_tokens = tokenize(denominator)
        per_ha = len(denominator_tokens) == 1 and denominator_tokens[0] in self.area
        if not per_ha:
            numerator = text
        measure = self._measure_of(numerator)
        canonical = measure.canonical if measure is not None else None
        if measure is None or canonical is None:
            return Unit(numerator, 1.0, per_ha)
        base, factor = self.base.get(canonical, (canonical, 1.0))
        return Unit(base, round(measure.factor * factor, 9), per_ha, measure.name)
