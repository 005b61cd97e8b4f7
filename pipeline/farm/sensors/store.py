"""Sensor readings in the database: bulk ingest, the newest values, bearer tokens.

``SensorStore`` is the service the readings endpoint (``bot/http/readings.py``) and the
operators' /token and CSV import use; each of its methods is one short transaction.
``latest_readings`` (db/repositories/sensor_readings.py, re-exported here) is a query
for callers that already hold a read.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from db.repositories import farm as farm_repo
from db.repositories import recall as recall_repo
from db.repositories import sensor_readings, sensor_rollups
from db.repositories.sensor_readings import LatestReading, latest_readings
from db.uow import Database, Session
from pipeline.farm.sensors.readings import InvalidBatch, ItemError, ReadingIn, SensorTypes
from pipeline.intents import Intent

__all__ = [
    "IngestResult",
    "LatestReading",
    "SensorLearner",
    "SensorStore",
    "latest_readings",
    "name_key",
    "token_hash",
]

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "stp_"
#: The questions whose remembered answer (pipeline/recall/shortcuts.py) quotes the
#: farm's readings: a new reading drops it, with the status answer.
SENSOR_INTENTS = (Intent.IOT, Intent.IOT_ALERT, Intent.PLANNING)


@dataclass(frozen=True, slots=True)
class IngestResult:
    accepted: int
    duplicates: int


def name_key(name: str) -> str:
    """How a field's name is matched: case, quotes and spacing do not matter."""
    return " ".join(name.casefold().replace("«", " ").replace("»", " ").replace('"', " ").split())


async def _resolve_fields(
    session: Session, farm_id: str, readings: Sequence[ReadingIn]
) -> tuple[list[str | None], list[ItemError]]:
    """Each reading's field id: ``field_id`` may be the field's id or its name as the
    farm calls it ("Поле 3", "північне"); anything else is an error of that item."""
    wanted = {r.field_id for r in readings if r.field_id is not None}
    if not wanted:
        return [None] * len(readings), []
    ids: set[str] = set()
    by_name: dict[str, str] = {}
    for field_id, name in await farm_repo.field_ids_and_names(session, farm_id):
        ids.add(field_id)
        by_name.setdefault(name_key(name), field_id)
    resolved: list[str | None] = []
    errors: list[ItemError] = []
    for index, reading in enumerate(readings):
        ref = reading.field_id
        found = ref if ref is None or ref in ids else by_name.get(name_key(ref))
        if ref is not None and found is None:
            errors.append(
                ItemError(
                    index,
                    "field_id",
                    "unknown_field",
                    f"field '{ref}' is not a field of this farm (by id or name)",
                    {"field_id": ref},
                )
            )
        resolved.append(found)
    return resolved, errors


async def _insert(
    session: Session, farm_id: str, readings: Sequence[ReadingIn], *, source: str
) -> int:
    """Insert the readings not stored yet; returns how many were inserted. Raises
    InvalidBatch when a reading names a field the farm does not have."""
    field_ids, errors = await _resolve_fields(session, farm_id, readings)
    if errors:
        raise InvalidBatch(errors)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str, datetime]] = set()
    for reading, field_id in zip(readings, field_ids, strict=True):
        key = (reading.sensor_id, reading.sensor_type, reading.measured_at)
        if key in seen:
            continue
        seen.add(key)
        rows.append(
            {
                "farm_id": farm_id,
                "field_id": field_id,
                "sensor_id": reading.sensor_id,
                "sensor_type": reading.sensor_type,
                "value": reading.value,
                "unit": reading.unit,
                "measured_at": reading.measured_at,
                "source": source[:32],
            }
        )
    stored = await sensor_readings.insert_new(session, rows)
    # The hourly rollups of what was stored, in the same transaction.
    await sensor_rollups.add_readings(session, farm_id, stored)
    if stored:
        # A remembered answer quoting the old values is not given again.
        await recall_repo.drop_farm_sensor_answers(session, farm_id, SENSOR_INTENTS)
    return len(stored)


# --- The service ------------------------------------------------------------------------


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SensorLearner(Protocol):
    """What readings teach the farm profile (``pipeline.memory.ProfileLearner``)."""

    async def sensors_seen(
        self, farm_id: str, *, sources: Collection[str], sensor_types: Collection[str]
    ) -> Any: ...


class SensorStore:
    def __init__(
        self, db: Database, types: SensorTypes, *, learner: SensorLearner | None = None
    ) -> None:
        self._db = db
        self._types = types
        #: The first reading of a farm turns its IoT integration on (docs/memory.md).
        self._learner = learner

    @property
    def types(self) -> SensorTypes:
        """The sensor types readings are validated against (``parse_batch``)."""
        return self._types

    async def farm_of_user(self, user_id: str) -> str | None:
        """The user's farm id, or None for someone Stepan has no farm for."""
        async with self._db.read() as session:
            row = await farm_repo.farm_of(session, user_id)
            return row.farm_id if row is not None else None

    async def ingest(
        self, farm_id: str, readings: Sequence[ReadingIn], *, source: str
    ) -> IngestResult:
        """Store validated readings of one farm in one transaction. Raises
        InvalidBatch (nothing written) when a reading names a field the farm does not
        have. Readings already stored, or repeated in the batch, are not stored again
        and are counted as duplicates."""
        async with self._db.write() as session:
            accepted = await _insert(session, farm_id, readings, source=source)
        if accepted and self._learner is not None:
            # After the commit: a failed lesson never loses the readings.
            await self._learner.sensors_seen(
                farm_id, sources={source}, sensor_types={r.sensor_type for r in readings}
            )
        duplicates = len(readings) - accepted
        logger.info(
            "sensors: farm=%s source=%s accepted=%d duplicates=%d",
            farm_id,
            source,
            accepted,
            duplicates,
        )
        return IngestResult(accepted, duplicates)

    async def issue_token(self, farm_id: str, label: str) -> str:
        """A new bearer token for the farm's readings; only its sha256 is stored, so
        the caller shows it once and it cannot be recovered (issue another one)."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        async with self._db.write() as session:
            sensor_readings.add_token(session, token_hash(token), farm_id, label[:64])
        logger.info("sensors: token issued farm=%s label=%s", farm_id, label[:64])
        return token

    async def farm_for_token(self, token: str) -> str | None:
        """The farm a bearer token belongs to, or None."""
        if not token:
            return None
        async with self._db.read() as session:
            return await sensor_readings.farm_of_token(session, token_hash(token))
