"""UserProfile and FarmProfile (seed sections 4 and 5), validated.

SQL rows are converted to these models at the memory layer's edge; the rest of the
pipeline only sees validated profiles.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from pipeline.farm.localtime import DEFAULT_TIMEZONE, valid_zone
from pipeline.intents import Intent
from pipeline.language.codes import Language

Expertise = Literal["novice", "intermediate", "expert"]
Style = Literal["brief", "detailed", "conversational"]
STYLES: tuple[Style, ...] = ("brief", "detailed", "conversational")
EXPERTISE_LEVELS: tuple[Expertise, ...] = ("novice", "intermediate", "expert")
Phase = Literal["planning", "sowing", "growing", "harvest", "post_harvest", "dormant"]

SCHEMA_VERSION = 1
AGENT = "agromatrix"
RECENT_TOPICS_KEPT = 10
#: A follow-up within this time continues an agronomy conversation ("а глибина?").
RECENT_ADVICE_WINDOW = timedelta(minutes=30)


def _as_utc(value: datetime) -> datetime:
    # SQLite hands DateTime(timezone=True) columns back naive; everything Stepan stores
    # is UTC, and comparing a naive value with an aware "now" would raise.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]


def user_fact_key(user_id: str) -> str:
    return f"user_profile:{AGENT}:{user_id}"


def farm_fact_key(user_id: str) -> str:
    return f"farm_profile:{AGENT}:{user_id}"


def new_farm_id() -> str:
    return f"farm:{uuid.uuid4().hex[:16]}"


class _Model(BaseModel):
    model_config = ConfigDict(validate_assignment=True, extra="ignore")


class RecentTopic(_Model):
    intent: str
    ts: UtcDatetime
    #: The language the message was written in, when it was a full message (a short
    #: «ok» has none): the conversation's language (pipeline/language/choice.py).
    lang: Language | None = None


#: UserProfile's fields that are Stepan's own settings: never in the memory copy.
SQL_ONLY = frozenset({"expertise_locked", "weather_warnings"})


class UserProfile(_Model):
    user_id: str
    schema_version: int = SCHEMA_VERSION
    agent: str = AGENT
    name: str | None = Field(default=None, max_length=128)
    expertise_level: Expertise = "novice"
    #: Set when an operator chose the level by hand; auto-upgrade leaves it alone.
    expertise_locked: bool = False
    preferred_language: Language = "uk"
    preferred_style: Style = "conversational"
    last_seen: UtcDatetime | None = None
    interaction_count: int = Field(default=0, ge=0)
    known_intents: list[str] = Field(default_factory=list)
    context_notes: list[str] = Field(default_factory=list)
    farm_profile_ref: str | None = None
    recent_topics: list[RecentTopic] = Field(default_factory=list)
    operator: bool = False
    #: The weather warnings Stepan sends first (docs/weather.md); off in /me.
    weather_warnings: bool = True
    updated_at: UtcDatetime | None = None

    @classmethod
    def default(cls, user_id: str) -> UserProfile:
        """Seed section 10: an empty but valid profile for any failure."""
        return cls(user_id=user_id, farm_profile_ref=farm_fact_key(user_id))

    @property
    def fact_key(self) -> str:
        return user_fact_key(self.user_id)

    def to_seed_json(self) -> dict[str, Any]:
        """Exactly the seed's section 4 JSON shape (``expertise_locked`` and
        ``weather_warnings`` are Stepan's own settings and stay in SQL)."""
        body = self.model_dump(mode="json", exclude={"schema_version", *SQL_ONLY})
        # A topic's language is kept only when known: the seed's topics are {intent, ts}.
        for topic in body["recent_topics"]:
            if topic.get("lang") is None:
                topic.pop("lang", None)
        return {"_version": self.schema_version, "_fact_key": self.fact_key, **body}

    @classmethod
    def from_seed_json(cls, data: Any, user_id: str) -> Self:
        """A profile read back from the memory-service; ValueError for anything that is
        not this user's section 4 JSON (another user's fact, wrong shapes, bad values)."""
        body = _seed_body(data, user_id, user_fact_key(user_id))
        for name in SQL_ONLY:
            body.pop(name, None)
        return cls.model_validate(body)


class SeasonalContext(_Model):
    current_phase: Phase | None = None
    active_operations: list[str] = Field(default_factory=list)
    hemisphere: Literal["north", "south"] = "north"
    approximate_month: int | None = Field(default=None, ge=1, le=12)


class IotSensors(_Model):
    has_iot_integration: bool = False
    sensor_types: list[str] = Field(default_factory=list)
    last_alert: UtcDatetime | None = None
    #: An operator switched the sensors off: readings are still stored, but they
    #: neither switch the integration back on nor raise alerts (Stepan's own
    #: bookkeeping, like ``phase_locked``; stays in SQL, out of the seed's shape).
    switched_off: bool = False


class AlertThresholds(_Model):
    soil_moisture_min: float = Field(default=20.0, ge=0, le=100)
    temperature_min: float = Field(default=-5.0, ge=-60, le=60)
    temperature_max: float = Field(default=38.0, ge=-60, le=70)

    @model_validator(mode="after")
    def _ordered(self) -> AlertThresholds:
        if self.temperature_min >= self.temperature_max:
            # Its own error type, so the operator reads it in words (admin.problem.*).
            raise PydanticCustomError(
                "temperature_order", "temperature_min must be below temperature_max"
            )
        return self


def _zone(name: str) -> str:
    zone = valid_zone(name)
    if zone is None:
        raise ValueError(f"unknown timezone {name!r} (an IANA name like Europe/Kyiv)")
    return zone


class FarmProfile(_Model):
    farm_id: str = Field(default_factory=new_farm_id)
    user_id: str
    schema_version: int = SCHEMA_VERSION
    farm_name: str | None = Field(default=None, max_length=128)
    field_ids: list[str] = Field(default_factory=list)
    crop_ids: list[str] = Field(default_factory=list)
    active_integrations: list[str] = Field(default_factory=list)
    seasonal_context: SeasonalContext = Field(default_factory=SeasonalContext)
    iot_sensors: IotSensors = Field(default_factory=IotSensors)
    typical_intents: list[str] = Field(default_factory=list)
    alert_thresholds: AlertThresholds = Field(default_factory=AlertThresholds)
    dict_pending_count: int = Field(default=0, ge=0)
    #: An IANA zone: every time the farmer reads and every day boundary (Stepan's
    #: own setting beyond the seed's shape; in the synced copy, so a restored farm
    #: keeps it).
    timezone: Annotated[str, AfterValidator(_zone)] = DEFAULT_TIMEZONE
    #: An oblast id of rules/knowledge/zones.toml ("region:poltava"), None while
    #: unknown (Stepan's own, in the synced copy like ``timezone``).
    region: str | None = Field(default=None, max_length=64)
    #: Set when an operator chose the season phase by hand: the journal no longer
    #: infers it (Stepan's own bookkeeping, like ``expertise_locked``; stays in SQL).
    phase_locked: bool = False
    updated_at: UtcDatetime | None = None

    @classmethod
    def default(cls, user_id: str) -> FarmProfile:
        return cls(user_id=user_id)

    @property
    def fact_key(self) -> str:
        return farm_fact_key(self.user_id)

    @property
    def has_iot(self) -> bool:
        return self.iot_sensors.has_iot_integration

    def to_seed_json(self) -> dict[str, Any]:
        """The seed's section 5 JSON shape, plus the stable ``farm_id``, the farm's
        ``timezone`` and ``region`` (a restored farm keeps its day boundaries and
        agronomy zone)."""
        body = self.model_dump(
            mode="json",
            exclude={
                "schema_version": True,
                "phase_locked": True,
                "iot_sensors": {"switched_off"},
            },
        )
        return {"_version": self.schema_version, "_fact_key": self.fact_key, **body}

    @classmethod
    def from_seed_json(cls, data: Any, user_id: str) -> Self:
        """A farm read back from the memory-service; ValueError unless it is this user's
        section 5 JSON with a ``farm_id``. A copy written before ``timezone`` and
        ``region`` were synced loads with the defaults; ``model_fields_set`` then
        lacks them (``FARM_COPY_OPTIONAL``), so a merge keeps the local values."""
        body = _seed_body(data, user_id, farm_fact_key(user_id))
        if not isinstance(body.get("farm_id"), str) or not body["farm_id"]:
            raise ValueError("farm profile without farm_id")
        body.pop("phase_locked", None)
        return cls.model_validate(body)


#: Farm fields an older synced copy may lack: taken from it only when it has them.
FARM_COPY_OPTIONAL = ("timezone", "region")


def copy_has(farm: FarmProfile, name: str) -> bool:
    """Whether the farm read from a copy carried ``name`` (``FARM_COPY_OPTIONAL``)."""
    return name in farm.model_fields_set


def _seed_body(data: Any, user_id: str, fact_key: str) -> dict[str, Any]:
    """The model fields of a seed JSON object, after checking whose and which it is."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if data.get("user_id") != user_id:
        raise ValueError("fact belongs to another user")
    if data.get("_fact_key", fact_key) != fact_key:
        raise ValueError("fact has another key")
    version = data.get("_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported profile version {version!r}")
    body = {key: value for key, value in data.items() if not key.startswith("_")}
    body["schema_version"] = SCHEMA_VERSION
    return body


def recent_advice(profile: UserProfile, now: datetime) -> bool:
    """The last message was an agronomy question, recently enough to follow up on."""
    if not profile.recent_topics:
        return False
    last = profile.recent_topics[-1]
    return last.intent == Intent.ADVICE and now - last.ts < RECENT_ADVICE_WINDOW
