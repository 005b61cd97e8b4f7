"""What the farm knows that a card does not, read in one short transaction: its
date (in its own timezone), region, fields' areas, the latest soil temperature, and
the last messages while they were agronomy questions (their crop carries over)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from db.repositories import farm as farm_repo
from db.repositories import interactions
from db.repositories.sensor_readings import latest_readings
from db.uow import Database
from pipeline.farm.localtime import zone as farm_zone
from pipeline.intents import Intent
from pipeline.knowledge import FarmFacts

__all__ = ["SOIL_TYPES", "FarmContext", "read_farm_context", "read_region"]

#: Sensor types that measure the soil's temperature, most specific first.
SOIL_TYPES = ("soil_temperature",)
#: How many agronomy questions back a follow-up's crop is looked for.
CONVERSATION_DEPTH = 3
#: How many messages back a region said in passing still counts (minutes apart).
RECENT_DEPTH = 8
#: An older reading says nothing about sowing today.
SOIL_READING_MAX_AGE = timedelta(days=2)


@dataclass(frozen=True, slots=True)
class FarmContext:
    facts: FarmFacts
    region: str | None = None
    #: The previous messages, newest first, while they were agronomy questions
    #: minutes apart ("норма висіву соняшнику", "а на поле 3?", "а глибина?").
    previous_questions: tuple[str, ...] = ()
    #: The crops of the farm's journal dictionary (the profile's list comes first).
    crops: tuple[str, ...] = ()
    #: The previous messages of any kind, newest first, while they were minutes
    #: apart: a region said in passing ("у нас Житомирщина") counts for the next.
    recent_texts: tuple[str, ...] = ()


async def read_region(db: Database, user_id: str) -> str | None:
    """The farm's region alone (``FarmContext.region`` without the rest)."""
    async with db.read() as session:
        return await farm_repo.region_of_user(session, user_id)


async def read_farm_context(
    db: Database, user_id: str, now: datetime, *, follow_up: timedelta
) -> FarmContext:
    async with db.read() as session:
        farm = await farm_repo.farm_of(session, user_id)
        last = await interactions.newest_of_user(session, user_id, RECENT_DEPTH)
        fields: dict[str, float] = {}
        soil: float | None = None
        crops: tuple[str, ...] = ()
        if farm is not None:
            crops = await farm_repo.crop_ids(session, farm.farm_id)
            rows = await farm_repo.fields(session, farm.farm_id)
            fields = {row.name: row.area_ha for row in rows if row.area_ha}
            readings = await latest_readings(
                session, farm.farm_id, sensor_types_in=SOIL_TYPES, since=now - SOIL_READING_MAX_AGE
            )
            if readings:
                soil = max(readings, key=lambda r: r.measured_at).value
    previous: list[str] = []
    recent: list[str] = []
    since = now
    asking = True
    for row in last:
        at = (
            row.created_at
            if row.created_at.tzinfo is not None
            else row.created_at.replace(tzinfo=UTC)
        )
        if not row.text or since - at >= follow_up:
            break
        recent.append(row.text)
        asking = asking and row.intent == Intent.ADVICE and len(previous) < CONVERSATION_DEPTH
        if asking:
            previous.append(row.text)
        since = at
    today = now.astimezone(farm_zone(farm.timezone if farm is not None else None)).date()
    return FarmContext(
        facts=FarmFacts(today=today, soil_temp_c=soil, fields=fields),
        region=farm.region if farm is not None else None,
        previous_questions=tuple(previous),
        crops=crops,
        recent_texts=tuple(recent),
    )
