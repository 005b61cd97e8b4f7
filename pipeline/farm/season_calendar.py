"""The season's phase as a farmer reads it: what the farm profile holds, checked
against the calendar and the farm's crops (issue 26 point 6).

The profile's phase is learned from the journal (``pipeline/memory/habits``) and is
left as it was when the journal is quiet, so a farm sprayed in September still held
"growing" in December and Stepan said «вегетація» then. Here a phase the month does
not allow (``rules/compose.toml`` ``[season.allowed]``; winter crops may grow in the
months of ``[season.winter_crops]``) is not said: the month's own phase is. A phase an
operator set is kept whatever the month (a greenhouse grows in winter).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from pipeline.profiles import FarmProfile, Phase


@dataclass(frozen=True, slots=True)
class SeasonCalendar:
    #: month -> the phase of a farm whose profile names none (northern hemisphere).
    by_month: Mapping[int, Phase]
    #: month -> the phases a farm may be in then.
    allowed: Mapping[int, frozenset[Phase]]
    #: Crops sown in autumn, and the phases their months add for a farm growing one.
    winter_crops: frozenset[str]
    winter_phases: Mapping[int, frozenset[Phase]]

    @staticmethod
    def north_month(month: int, hemisphere: str = "north") -> int:
        """The northern month of the same season (the south is six months off)."""
        return (month + 5) % 12 + 1 if hemisphere == "south" else month

    def for_month(self, month: int, hemisphere: str = "north") -> Phase:
        return self.by_month[self.north_month(month, hemisphere)]

    def possible(
        self, month: int, hemisphere: str = "north", crops: Collection[str] = ()
    ) -> frozenset[Phase]:
        north = self.north_month(month, hemisphere)
        phases = self.allowed[north]
        if self.winter_crops.intersection(crops):
            phases = phases | self.winter_phases.get(north, frozenset())
        return phases

    def phase(
        self,
        current: Phase | None,
        month: int,
        hemisphere: str = "north",
        crops: Collection[str] = (),
        *,
        locked: bool = False,
    ) -> Phase:
        """``current`` when the calendar (or an operator) allows it, else the month's."""
        if current is not None and (locked or current in self.possible(month, hemisphere, crops)):
            return current
        return self.for_month(month, hemisphere)

    def of_farm(self, farm: FarmProfile, month: int, crops: Collection[str] = ()) -> Phase:
        """The farm's phase in ``month``; ``crops`` adds crop ids the profile's list lacks."""
        context = farm.seasonal_context
        return self.phase(
            context.current_phase,
            month,
            context.hemisphere,
            {*farm.crop_ids, *crops},
            locked=farm.phase_locked,
        )
