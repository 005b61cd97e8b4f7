"""Sensor readings: the types and the validation of a batch.

Readings come over HTTP (``bot/http/readings.py``) and in CSV files operators send to the bot
(``pipeline/farm/sensors/csv_file.py``); both go through ``parse_batch`` then
``SensorStore.ingest`` (``pipeline/farm/sensors/store.py``).

* A batch is all-or-nothing: one bad item refuses the whole batch (every bad item
  is named), so a gateway that retries never leaves half a batch behind and never
  has to work out which half.
* A reading is identified by (farm, sensor, type, instant): gateways resend after
  a timeout, so a reading already stored, or repeated inside the batch, is skipped
  and counted as a duplicate; the first copy stored wins.
* The types, their units and plausible ranges are data: ``pipeline/rules/sensors.toml``.

Contract for integrators: docs/sensors.md.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from pipeline.farm.sensors.alert_rules import AlertPolicy
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, Text, load

logger = logging.getLogger(__name__)

RULES_FILE = RULES_DIR / "sensors.toml"
#: Readings in one request or file. 10,000 (a day of a big farm) must fit; beyond a
#: few tens of thousands one transaction would hold SQLite's write lock too long.
MAX_BATCH = 20_000
#: A device clock a little ahead is normal; more is a wrong clock, and a reading from
#: "tomorrow" would stand as the latest one and hide the real ones (alerts included)
#: until its time came.
MAX_AHEAD = timedelta(minutes=5)
#: Nothing was measured by a sensor of this farm before this (a wrong clock or year).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
#: Control characters: PostgreSQL refuses NUL in text, the rest is noise; and the
#: invisible ones that change how an id is shown where a farmer reads it (zero-width
#: characters, bidi controls such as U+202E that reverse the text after them, line
#: and paragraph separators, the BOM).
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
#: Errors returned for one batch; the rest are only counted.
MAX_REPORTED_ERRORS = 100


def _in_future() -> PydanticCustomError:
    minutes = int(MAX_AHEAD.total_seconds() // 60)
    return PydanticCustomError(
        "future", f"measured_at is more than {minutes} minutes in the future (device clock?)"
    )


def _too_old() -> PydanticCustomError:
    return PydanticCustomError(
        "too_old", f"measured_at is before {EARLIEST.date().isoformat()} (device clock?)"
    )


# --- Sensor types (data) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SensorType:
    name: str
    unit: str
    units: Mapping[str, str]  # casefolded spelling -> stored unit
    minimum: float
    maximum: float
    #: Which alert_thresholds apply: "soil_moisture", "temperature" or None.
    alerts: str | None
    #: Readings are amounts since the previous one (rain): charted as daily totals.
    totals: bool = False


@dataclass(frozen=True, slots=True)
class SensorTypes:
    types: Mapping[str, SensorType]
    aliases: Mapping[str, str]
    #: ``[alerting]``: hysteresis margins and silent-probe rules
    #: (pipeline/farm/sensors/alert_rules.py).
    alerting: AlertPolicy = dataclasses.field(default_factory=AlertPolicy)

    def resolve(self, name: str) -> SensorType | None:
        key = name.strip().lower()
        return self.types.get(self.aliases.get(key, key))

    @classmethod
    def load(cls, path: Path = RULES_FILE) -> SensorTypes:
        """The known types from the rules file; the factory's Rulebook reads it once and
        hands it to the sensor store, the alert watcher and the deep path's tools."""
        file = load(path, _SensorsFile)
        types: dict[str, SensorType] = {}
        aliases: dict[str, str] = {}
        for name, spec in file.types.items():
            spellings = {s.casefold(): spec.unit for s in spec.units} | {
                spec.unit.casefold(): spec.unit
            }
            types[name] = SensorType(
                name=name,
                unit=spec.unit,
                units=spellings,
                minimum=spec.min,
                maximum=spec.max,
                alerts=spec.alerts,
                totals=spec.totals,
            )
            for alias in spec.aliases:
                aliases[alias.lower()] = name
        alerting = file.alerting.model_dump(exclude_unset=True) if file.alerting else None
        return cls(types, aliases, AlertPolicy.from_raw(alerting))


class _TypeSpec(RulesModel):
    unit: Text
    units: tuple[str, ...] = ()
    min: float
    max: float
    alerts: str | None = None
    totals: bool = False
    aliases: tuple[str, ...] = ()


class _Alerting(RulesModel):
    silent_after_hours: float = 6
    silent_min_readings: int = 3
    silent_lookback_days: float = 7
    batch_sources: tuple[str, ...] = ()
    dormant_months: tuple[int, ...] = (11, 12, 1, 2)
    hysteresis: dict[str, float] = Field(default_factory=dict)


class _SensorsFile(RulesModel):
    version: int = 1
    alerting: _Alerting | None = None
    types: dict[str, _TypeSpec]


def _types(info: ValidationInfo) -> SensorTypes:
    """The sensor types ``parse_batch`` validates against (in the validation context)."""
    types = (info.context or {}).get("types")
    if not isinstance(types, SensorTypes):
        raise TypeError("readings are validated through parse_batch(items, types)")
    return types


def _not_utf8(value: str) -> bool:
    """A lone surrogate (JSON's ``"\\ud800"`` decodes to one): not text anything can
    store or show, and rendering an error message with it used to fail (HTTP 500)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _not_text() -> PydanticCustomError:
    return PydanticCustomError("not_text", "must be valid text (UTF-8, no lone surrogates)")


def _number(value: float) -> str:
    return f"{value:g}"


# --- Validation -----------------------------------------------------------------------


class ReadingIn(BaseModel):
    """One reading as integrations send it. Validated field by field, in this order
    (the unit and range checks need the type)."""

    model_config = ConfigDict(
        frozen=True, extra="ignore", str_strip_whitespace=True, coerce_numbers_to_str=True
    )

    sensor_id: str = Field(min_length=1, max_length=64)
    sensor_type: str
    value: float = Field(allow_inf_nan=False)
    unit: str = Field(default="", validate_default=True)
    measured_at: datetime
    field_id: str | None = Field(default=None, max_length=64)

    @field_validator("sensor_id", "field_id")
    @classmethod
    def _printable(cls, value: str | None) -> str | None:
        if value is not None and _CONTROL_RE.search(value):
            raise PydanticCustomError("control_chars", "must not contain control characters")
        return value

    @field_validator("sensor_type", mode="before")
    @classmethod
    def _known_type(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value  # the str check reports it
        if _not_utf8(value):
            raise _not_text()
        types = _types(info)
        known = types.resolve(value)
        if known is None:
            raise PydanticCustomError(
                "unknown_type",
                "unknown sensor_type '{value}'; known: {known}",
                {"value": value[:64], "known": ", ".join(types.types)},
            )
        return known.name

    @field_validator("value", mode="before")
    @classmethod
    def _not_bool(cls, value: Any) -> Any:
        # JSON true would silently become 1.0.
        if isinstance(value, bool):
            raise PydanticCustomError("not_a_number", "value must be a number")
        return value

    @field_validator("value")
    @classmethod
    def _in_range(cls, value: float, info: ValidationInfo) -> float:
        kind = _types(info).types.get(info.data.get("sensor_type", ""))
        if kind is not None and not kind.minimum <= value <= kind.maximum:
            raise PydanticCustomError(
                "out_of_range",
                "{sensor_type} must be within {min}..{max}",
                {
                    "sensor_type": kind.name,
                    "min": _number(kind.minimum),
                    "max": _number(kind.maximum),
                },
            )
        return value

    @field_validator("unit", mode="before")
    @classmethod
    def _known_unit(cls, value: Any, info: ValidationInfo) -> Any:
        kind = _types(info).types.get(info.data.get("sensor_type", ""))
        if value is None or value == "":
            return kind.unit if kind is not None else ""
        if not isinstance(value, str):
            # A number would be turned into the text "5" and stored as a unit.
            raise PydanticCustomError("not_text", "unit must be a string such as '%'")
        if _not_utf8(value):
            raise _not_text()
        if kind is None:
            return value
        unit = kind.units.get(value.strip().casefold())
        if unit is None:
            raise PydanticCustomError(
                "unknown_unit",
                "unit '{unit}' is not accepted for {sensor_type}; use {allowed}",
                {"unit": value[:16], "sensor_type": kind.name, "allowed": kind.unit},
            )
        return unit

    @field_validator("measured_at", mode="before")
    @classmethod
    def _aware_iso(cls, value: Any, info: ValidationInfo) -> datetime:
        if not isinstance(value, str):
            raise PydanticCustomError(
                "bad_datetime", "measured_at must be an ISO 8601 string with a time zone"
            )
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise PydanticCustomError(
                "bad_datetime", "measured_at must be an ISO 8601 string with a time zone"
            ) from None
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise PydanticCustomError(
                "naive_datetime",
                "measured_at has no time zone; add Z or an offset like +03:00",
            )
        try:
            # Stored in UTC: SQLite keeps the wall time only, and the same instant in
            # two offsets must be one reading. 0001-01-01T00:30+01:00 has no UTC.
            moment = moment.astimezone(UTC)
        except OverflowError:
            raise (_in_future() if moment.year == datetime.max.year else _too_old()) from None
        if moment < EARLIEST:
            raise _too_old()
        now = (info.context or {}).get("now") or datetime.now(UTC)
        if moment - now > MAX_AHEAD:
            raise _in_future()
        return moment

    @field_validator("field_id", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value


_BATCH: TypeAdapter[list[ReadingIn]] = TypeAdapter(list[ReadingIn])

#: pydantic's own error types, named the way docs/sensors.md lists them.
_PYDANTIC_CODES = {
    "missing": "missing",
    "float_parsing": "not_a_number",
    "float_type": "not_a_number",
    "finite_number": "not_a_number",
    "string_type": "not_text",
    "string_unicode": "not_text",  # a lone surrogate in sensor_id or field_id
    "string_too_short": "empty",
    "string_too_long": "too_long",
    "model_type": "not_object",
    "model_attributes_type": "not_object",
}
#: Codes raised by ReadingIn's own validators.
_OWN_CODES = frozenset(
    {"unknown_type", "not_a_number", "out_of_range", "unknown_unit", "bad_datetime"}
    | {"naive_datetime", "future", "too_old", "control_chars", "not_text"}
)


@dataclass(frozen=True, slots=True)
class ItemError:
    """One problem with one item: ``index`` in the batch (0-based), the ``field``
    (None when the item itself is wrong), a stable ``code`` and an English message.
    ``params`` let the bot say the same in the operator's language."""

    index: int
    field: str | None
    code: str
    message: str
    params: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "field": self.field,
            "code": self.code,
            "message": self.message,
        }


class InvalidBatch(Exception):
    """Nothing of the batch was written; ``errors`` (at most MAX_REPORTED_ERRORS)
    name the bad items, ``total`` counts all of them."""

    def __init__(self, errors: Sequence[ItemError], total: int | None = None) -> None:
        super().__init__(f"{total or len(errors)} invalid reading(s)")
        self.errors = list(errors)[:MAX_REPORTED_ERRORS]
        self.total = total if total is not None else len(errors)


class BatchTooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(f"{size} readings in one batch; at most {MAX_BATCH}")
        self.size = size


def _item_errors(exc: ValidationError) -> list[ItemError]:
    errors: list[ItemError] = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = error["loc"]
        index = int(loc[0]) if loc and isinstance(loc[0], int) else 0
        name = str(loc[1]) if len(loc) > 1 else None
        kind = str(error["type"])
        params = {key: str(value) for key, value in (error.get("ctx") or {}).items()}
        message = str(error["msg"])
        if kind in _OWN_CODES:
            code = kind
        elif kind in _PYDANTIC_CODES:
            code = _PYDANTIC_CODES[kind]
            if code == "not_object":
                message, name = "each reading must be a JSON object", None
            elif code == "missing":
                message = f"{name} is required"
        else:
            code = "invalid"
            params["reason"] = message
        errors.append(ItemError(index, name, code, message, params))
    return errors


def parse_batch(
    items: Sequence[Any], types: SensorTypes, *, now: datetime | None = None
) -> list[ReadingIn]:
    """Validate raw items (dicts from JSON or CSV). Raises BatchTooLarge or
    InvalidBatch naming every bad item."""
    if len(items) > MAX_BATCH:
        raise BatchTooLarge(len(items))
    try:
        context = {"now": now or datetime.now(UTC), "types": types}
        return _BATCH.validate_python(list(items), context=context)
    except ValidationError as exc:
        errors = _item_errors(exc)
        raise InvalidBatch(errors, len(errors)) from None
