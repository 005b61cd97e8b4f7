"""When an alert episode opens and ends: thresholds with hysteresis, the field's worst
probe, silent probes. Pure decisions; ``pipeline.farm.sensors.alerts`` reads and writes.

* **Levels, by the field's worst probe.** All probes of a field count together: the
  field is in breach while its worst probe is (the lowest moisture, the coldest or
  hottest temperature), so two probes at 15 % and 30 % are one dry field, not an
  alert each time the other one reports. Readings without a field are each their
  own probe (nothing says two of them stand in the same place).
* **Hysteresis.** A breach opens at the threshold (a value exactly at it is fine);
  the episode ends only when every probe of the field is back past the threshold by
  the type group's margin (``[alerting.hysteresis]`` in rules/sensors.toml): a
  value hovering at 19.6-20.4 around a minimum of 20 is one episode, not eighteen.
* **Silence.** A probe that used to report (at least ``silent_min_readings`` in the
  last ``silent_lookback_days``, through the endpoint, not CSV imports which come in
  batches) and has sent nothing for ``silent_after_hours`` opens a "silent" episode;
  its next reading ends it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from db.repositories.sensor_watch import ProbeActivity, ProbeValue
from pipeline.profiles import AlertThresholds

SILENT = "silent"
BELOW, ABOVE = "below_min", "above_max"


@dataclass(frozen=True, slots=True)
class AlertPolicy:
    """``[alerting]`` of rules/sensors.toml."""

    #: Type group ("soil_moisture", "temperature") -> margin in the type's unit.
    hysteresis: Mapping[str, float] = field(default_factory=dict)
    silent_after: timedelta = timedelta(hours=6)
    silent_lookback: timedelta = timedelta(days=7)
    silent_min_readings: int = 3
    #: Sources that deliver in batches: their gaps are not silence.
    batch_sources: frozenset[str] = frozenset({"csv"})
    #: Months (the farm's clock, northern) nobody irrigates or works the soil: an
    #: alert's action is the ``_dormant`` one («сплануйте полив» at 2 °C is wrong).
    dormant_months: frozenset[int] = frozenset({11, 12, 1, 2})

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any] | None) -> AlertPolicy:
        raw = raw or {}
        default = cls()
        return cls(
            hysteresis={str(k): float(v) for k, v in raw.get("hysteresis", {}).items()},
            silent_after=timedelta(hours=float(raw.get("silent_after_hours", 6))),
            silent_lookback=timedelta(days=float(raw.get("silent_lookback_days", 7))),
            silent_min_readings=int(raw.get("silent_min_readings", 3)),
            batch_sources=frozenset(raw.get("batch_sources", default.batch_sources)),
            dormant_months=frozenset(
                int(m) for m in raw.get("dormant_months", default.dormant_months)
            ),
        )

    def margin(self, group: str) -> float:
        return self.hysteresis.get(group, 0.0)


@dataclass(frozen=True, slots=True)
class Breach:
    kind: str  # below_min | above_max
    threshold: float

    def excess(self, value: float) -> float:
        """How far ``value`` is past the threshold (positive: in breach)."""
        return self.threshold - value if self.kind == BELOW else value - self.threshold


def breach_of(group: str, value: float, limits: AlertThresholds) -> Breach | None:
    """Which threshold ``value`` crosses, if any (a value AT a threshold is fine)."""
    for bound in bounds_of(group, limits):
        if bound.excess(value) > 0:
            return bound
    return None


def bounds_of(group: str, limits: AlertThresholds) -> list[Breach]:
    if group == "soil_moisture":
        return [Breach(BELOW, limits.soil_moisture_min)]
    if group == "temperature":
        return [Breach(BELOW, limits.temperature_min), Breach(ABOVE, limits.temperature_max)]
    return []


@dataclass(frozen=True, slots=True)
class Episode:
    """An open episode as the decisions need it."""

    id: int
    field_id: str | None
    sensor_type: str
    sensor_id: str | None
    kind: str


@dataclass(frozen=True, slots=True)
class Opening:
    field_id: str | None
    sensor_type: str
    sensor_id: str
    kind: str
    value: float
    threshold: float
    started_at: datetime


@dataclass(frozen=True, slots=True)
class Closing:
    episode_id: int
    ended_at: datetime
    ended_value: float | None


@dataclass(slots=True)
class Decisions:
    opens: list[Opening] = field(default_factory=list)
    closes: list[Closing] = field(default_factory=list)


LevelKey = tuple[str | None, str, str | None]


def level_key(field_id: str | None, sensor_type: str, sensor_id: str | None) -> LevelKey:
    """A field's episodes are the field's; a field-less probe's are the probe's."""
    return (field_id, sensor_type, None if field_id is not None else sensor_id)


def _recovered(probes: Sequence[ProbeValue], bound: Breach, margin: float) -> bool:
    """Every probe back past the threshold by the margin."""
    return all(bound.excess(p.value) <= -margin for p in probes)


def _worst(
    group: str, probes: Sequence[ProbeValue], limits: AlertThresholds
) -> tuple[ProbeValue, Breach] | None:
    worst: tuple[float, ProbeValue, Breach] | None = None
    for probe in probes:
        for bound in bounds_of(group, limits):
            excess = bound.excess(probe.value)
            if excess > 0 and (worst is None or excess > worst[0]):
                worst = (excess, probe, bound)
    return None if worst is None else (worst[1], worst[2])


def decide_levels(
    values: Iterable[ProbeValue],
    episodes: Iterable[Episode],
    groups: Mapping[str, str],
    limits: AlertThresholds,
    policy: AlertPolicy,
) -> Decisions:
    """Episodes to open and close from the probes' newest values (``groups``: sensor
    type -> its threshold group)."""
    by_key: dict[LevelKey, list[ProbeValue]] = {}
    for value in values:
        key = level_key(value.field_id, value.sensor_type, value.sensor_id)
        by_key.setdefault(key, []).append(value)
    open_by_key = {
        level_key(e.field_id, e.sensor_type, e.sensor_id): e for e in episodes if e.kind != SILENT
    }
    decisions = Decisions()
    for key, probes in by_key.items():
        group = groups[key[1]]
        newest = max(probes, key=lambda p: p.measured_at)
        episode = open_by_key.get(key)
        if episode is not None:
            bound = next((b for b in bounds_of(group, limits) if b.kind == episode.kind), None)
            if bound is not None and not _recovered(probes, bound, policy.margin(group)):
                continue  # the same episode: told once already (or pending)
            # Back to normal, or a threshold the farm no longer has.
            decisions.closes.append(Closing(episode.id, newest.measured_at, newest.value))
        worst = _worst(group, probes, limits)
        if worst is None:
            continue
        probe, bound = worst
        decisions.opens.append(
            Opening(
                field_id=key[0],
                sensor_type=key[1],
                sensor_id=probe.sensor_id,
                kind=bound.kind,
                value=probe.value,
                threshold=bound.threshold,
                started_at=probe.measured_at,
            )
        )
    return decisions


def decide_silence(
    activity: Iterable[ProbeActivity],
    episodes: Iterable[Episode],
    now: datetime,
    policy: AlertPolicy,
) -> Decisions:
    """A silent episode for each probe quiet for ``silent_after`` that used to report;
    a reading after the silence began ends it."""
    silent = {e.sensor_id: e for e in episodes if e.kind == SILENT}
    decisions = Decisions()
    for probe in activity:
        quiet = now - probe.last_at >= policy.silent_after
        episode = silent.get(probe.sensor_id)
        if episode is not None:
            if not quiet:
                decisions.closes.append(Closing(episode.id, probe.last_at, None))
            continue
        if quiet and probe.readings >= policy.silent_min_readings:
            hours = policy.silent_after.total_seconds() / 3600
            decisions.opens.append(
                Opening(
                    field_id=probe.field_id,
                    sensor_type=probe.sensor_type,
                    sensor_id=probe.sensor_id,
                    kind=SILENT,
                    value=hours,  # the silence that triggered it, in hours
                    threshold=hours,
                    started_at=probe.last_at,
                )
            )
    return decisions
