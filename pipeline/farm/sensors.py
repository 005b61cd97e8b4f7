"""Sensor readings: validation, bulk ingest, the newest values, bearer tokens.

Readings come over HTTP (``bot/web.py``) and in CSV files operators send to the bot
(``pipeline/farm/sensor_csv.py``); both go through ``parse_batch`` then ``ingest``.

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
import functools
import hashlib
import logging
import secrets
import tomllib
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
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmTokenRow, FieldRow, SensorReadingRow
from db.repositories.profiles import dialect_insert

logger = logging.getLogger(__name__)

RULES_FILE = Path(__file__).resolve().parent.parent / "rules" / "sensors.toml"
#: Readings in one request or file. 10,000 (a day of a big farm) must fit; beyond a
#: few tens of thousands one transaction would hold SQLite's write lock too long.
MAX_BATCH = 20_000
#: Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits.
INSERT_CHUNK = 1_000
#: A device clock a little ahead is normal; a day ahead is a wrong clock or year.
MAX_AHEAD = timedelta(days=1)
#: Errors returned for one batch; the rest are only counted.
MAX_REPORTED_ERRORS = 100
TOKEN_PREFIX = "stp_"


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


@dataclass(frozen=True, slots=True)
class SensorTypes:
    types: Mapping[str, SensorType]
    aliases: Mapping[str, str]

    def resolve(self, name: str) -> SensorType | None:
        key = name.strip().lower()
        return self.types.get(self.aliases.get(key, key))


@functools.cache
def sensor_types(path: Path = RULES_FILE) -> SensorTypes:
    """The known types, read once (the file is part of the package)."""
    with path.open("rb") as handle:
        raw = tomllib.load(handle)
    types: dict[str, SensorType] = {}
    aliases: dict[str, str] = {}
    for name, spec in raw["types"].items():
        unit = str(spec["unit"])
        spellings = {str(s).casefold(): unit for s in spec.get("units", [])} | {
            unit.casefold(): unit
        }
        types[name] = SensorType(
            name=name,
            unit=unit,
            units=spellings,
            minimum=float(spec["min"]),
            maximum=float(spec["max"]),
            alerts=spec.get("alerts"),
        )
        for alias in spec.get("aliases", []):
            aliases[str(alias).lower()] = name
    return SensorTypes(types, aliases)


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

    @field_validator("sensor_type", mode="before")
    @classmethod
    def _known_type(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value  # the str check reports it
        known = sensor_types().resolve(value)
        if known is None:
            raise PydanticCustomError(
                "unknown_type",
                "unknown sensor_type '{value}'; known: {known}",
                {"value": value[:64], "known": ", ".join(sensor_types().types)},
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
        kind = sensor_types().types.get(info.data.get("sensor_type", ""))
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
        kind = sensor_types().types.get(info.data.get("sensor_type", ""))
        if value is None or value == "":
            return kind.unit if kind is not None else ""
        if not isinstance(value, str) or kind is None:
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
        now = (info.context or {}).get("now") or datetime.now(UTC)
        if moment - now > MAX_AHEAD:
            raise PydanticCustomError(
                "future", "measured_at is more than 1 day in the future (device clock?)"
            )
        # Stored in UTC: SQLite keeps the wall time only, and the same instant in
        # two offsets must be one reading.
        return moment.astimezone(UTC)

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
    "string_too_short": "empty",
    "string_too_long": "too_long",
    "model_type": "not_object",
    "model_attributes_type": "not_object",
}
#: Codes raised by ReadingIn's own validators.
_OWN_CODES = frozenset(
    {"unknown_type", "not_a_number", "out_of_range", "unknown_unit", "bad_datetime"}
    | {"naive_datetime", "future"}
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


def parse_batch(items: Sequence[Any], *, now: datetime | None = None) -> list[ReadingIn]:
    """Validate raw items (dicts from JSON or CSV). Raises BatchTooLarge or
    InvalidBatch naming every bad item."""
    if len(items) > MAX_BATCH:
        raise BatchTooLarge(len(items))
    try:
        return _BATCH.validate_python(list(items), context={"now": now or datetime.now(UTC)})
    except ValidationError as exc:
        errors = _item_errors(exc)
        raise InvalidBatch(errors, len(errors)) from None


# --- Ingest ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IngestResult:
    accepted: int
    duplicates: int


async def _unknown_fields(
    session: AsyncSession, farm_id: str, readings: Sequence[ReadingIn]
) -> list[ItemError]:
    wanted = {r.field_id for r in readings if r.field_id is not None}
    if not wanted:
        return []
    result = await session.execute(
        select(FieldRow.field_id).where(FieldRow.farm_id == farm_id, FieldRow.field_id.in_(wanted))
    )
    known = set(result.scalars())
    return [
        ItemError(
            index,
            "field_id",
            "unknown_field",
            f"field '{reading.field_id}' is not a field of this farm",
            {"field_id": reading.field_id},
        )
        for index, reading in enumerate(readings)
        if reading.field_id is not None and reading.field_id not in known
    ]


async def ingest(
    session: AsyncSession, farm_id: str, readings: Sequence[ReadingIn], *, source: str
) -> IngestResult:
    """Store validated readings of one farm in one transaction (committed here).
    Raises InvalidBatch (nothing written) when a reading names a field the farm does
    not have. Readings already stored, or repeated in the batch, are not stored
    again and are counted as duplicates."""
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str, datetime]] = set()
    for reading in readings:
        key = (reading.sensor_id, reading.sensor_type, reading.measured_at)
        if key in seen:
            continue
        seen.add(key)
        rows.append(
            {
                "farm_id": farm_id,
                "field_id": reading.field_id,
                "sensor_id": reading.sensor_id,
                "sensor_type": reading.sensor_type,
                "value": reading.value,
                "unit": reading.unit,
                "measured_at": reading.measured_at,
                "source": source[:32],
            }
        )
    table = SensorReadingRow.__table__
    # RETURNING counts what was inserted on both dialects (asyncpg's executemany has
    # no row count); SQLAlchemy sends each chunk as multi-row INSERTs.
    statement = dialect_insert(session)(table).on_conflict_do_nothing().returning(table.c.id)
    accepted = 0
    try:
        errors = await _unknown_fields(session, farm_id, readings)
        if errors:
            raise InvalidBatch(errors)
        if rows:
            connection = await session.connection()
            for start in range(0, len(rows), INSERT_CHUNK):
                result = await connection.execute(statement, rows[start : start + INSERT_CHUNK])
                accepted += len(result.all())
        await session.commit()
    except BaseException:
        await session.rollback()
        raise
    duplicates = len(readings) - accepted
    logger.info(
        "sensors: farm=%s source=%s accepted=%d duplicates=%d",
        farm_id,
        source,
        accepted,
        duplicates,
    )
    return IngestResult(accepted, duplicates)


# --- The newest values ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LatestReading:
    field_id: str | None
    sensor_type: str
    sensor_id: str
    value: float
    unit: str
    measured_at: datetime


def _utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes (stored as UTC), PostgreSQL aware ones.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


async def latest_readings(
    session: AsyncSession,
    farm_id: str,
    *,
    field_id: str | None = None,
    sensor_type: str | None = None,
    sensor_types_in: Sequence[str] | None = None,
    since: datetime | None = None,
) -> list[LatestReading]:
    """The newest reading per (field, sensor type) of a farm, optionally of one field
    and/or type (or several types), optionally only among readings at or after
    ``since``. Ordered by field then type; readings without a field have field None.
    Ends its read transaction (SQLite holds the write lock while one is open)."""
    rows = SensorReadingRow
    conditions = [rows.farm_id == farm_id]
    if sensor_type is not None:
        conditions.append(rows.sensor_type == sensor_type)
    if sensor_types_in is not None:
        conditions.append(rows.sensor_type.in_(list(sensor_types_in)))
    if field_id is not None:
        conditions.append(rows.field_id == field_id)
    if since is not None:
        conditions.append(rows.measured_at >= _utc(since))
    rank = (
        func.row_number()
        .over(
            partition_by=(rows.field_id, rows.sensor_type),
            order_by=(rows.measured_at.desc(), rows.id.desc()),
        )
        .label("rank")
    )
    ranked = (
        select(
            rows.field_id,
            rows.sensor_type,
            rows.sensor_id,
            rows.value,
            rows.unit,
            rows.measured_at,
            rank,
        )
        .where(*conditions)
        .subquery()
    )
    query = (
        select(ranked)
        .where(ranked.c.rank == 1)
        .order_by(ranked.c.field_id.is_(None), ranked.c.field_id, ranked.c.sensor_type)
    )
    try:
        result = await session.execute(query)
        latest = [
            LatestReading(
                row.field_id,
                row.sensor_type,
                row.sensor_id,
                row.value,
                row.unit,
                _utc(row.measured_at),
            )
            for row in result
        ]
        await session.commit()
    except BaseException:
        await session.rollback()
        raise
    return latest


# --- Tokens ---------------------------------------------------------------------------


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def issue_token(session: AsyncSession, farm_id: str, label: str) -> str:
    """A new bearer token for the farm's readings; only its sha256 is stored, so the
    caller shows it once and it cannot be recovered (issue another one instead)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    try:
        session.add(FarmTokenRow(token_hash=token_hash(token), farm_id=farm_id, label=label[:64]))
        await session.commit()
    except BaseException:
        await session.rollback()
        raise
    logger.info("sensors: token issued farm=%s label=%s", farm_id, label[:64])
    return token


async def farm_for_token(session: AsyncSession, token: str) -> str | None:
    """The farm a bearer token belongs to, or None. Ends its read transaction."""
    if not token:
        return None
    try:
        result = await session.execute(
            select(FarmTokenRow.farm_id).where(FarmTokenRow.token_hash == token_hash(token))
        )
        farm_id = result.scalar_one_or_none()
        await session.commit()
    except BaseException:
        await session.rollback()
        raise
    return farm_id
