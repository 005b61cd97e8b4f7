"""The farm's data: fields, crops, the term dictionary and its review, operations
and their drafts, sensor readings, alerts and sensor tokens."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
    text,
)
from sqlalchemy.orm import Mapped, ORMExecuteState, Session, mapped_column, with_loader_criteria

from db.base import Base, Json, _now
from db.states import (
    AlertKind,
    DraftStatus,
    OperationStatus,
    PendingTermStatus,
    RevisionKind,
    TermKind,
    WeatherWarningKind,
    one_of,
)


class FieldRow(Base):
    """A field of a farm. ``field_id`` (e.g. ``field:north-01``) is stable per farm."""

    __tablename__ = "fields"
    __table_args__ = (UniqueConstraint("farm_id", "field_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    field_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(128))
    area_ha: Mapped[float | None] = mapped_column(Float)
    #: The field's point (docs/weather.md); None: the farm's stands in.
    latitude: Mapped[float | None] = mapped_column(Float)
    longitude: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class CropRow(Base):
    __tablename__ = "crops"
    __table_args__ = (UniqueConstraint("farm_id", "crop_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    crop_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class DictionaryTermRow(Base):
    """A canonical name and its synonyms. ``farm_id`` NULL: shared by every farm."""

    __tablename__ = "dictionary_terms"
    __table_args__ = (UniqueConstraint("farm_id", "kind", "canonical_id"), one_of("kind", TermKind))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str | None] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[TermKind] = mapped_column(String(16))
    canonical_id: Mapped[str] = mapped_column(String(64))
    display: Mapped[str] = mapped_column(String(128))
    synonyms: Mapped[list[str]] = mapped_column(Json, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class PendingTermRow(Base):
    """A name Stepan did not know: it waits for an operator instead of being invented."""

    __tablename__ = "pending_terms"
    __table_args__ = (
        UniqueConstraint("farm_id", "kind", "term"),
        one_of("status", PendingTermStatus),
        one_of("kind", TermKind),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    kind: Mapped[TermKind] = mapped_column(String(16))
    term: Mapped[str] = mapped_column(String(128))  # normalised
    first_message: Mapped[str] = mapped_column(Text)
    times_seen: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[PendingTermStatus] = mapped_column(
        String(16), default=PendingTermStatus.PENDING, index=True
    )
    canonical_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )


class OperationDraftRow(Base):
    """An operation read from a message, shown as a card until the user confirms it."""

    __tablename__ = "operation_drafts"
    __table_args__ = (
        Index("ix_operation_drafts_user_created", "user_id", "created_at"),
        # One card per message: a redelivered update finds the card it wrote before
        # (migration 0026_one_draft_per_message).
        Index(
            "ux_operation_drafts_message",
            "chat_id",
            "source_message_id",
            unique=True,
            sqlite_where=text("source_message_id IS NOT NULL"),
            postgresql_where=text("source_message_id IS NOT NULL"),
        ),
        one_of("status", DraftStatus),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    farm_id: Mapped[str] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), index=True
    )
    chat_id: Mapped[int] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    payload: Mapped[dict[str, Any]] = mapped_column(Json)
    status: Mapped[DraftStatus] = mapped_column(String(16), default=DraftStatus.DRAFT)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class OperationRow(Base):
    """The farm journal. One source message writes each of its operations once."""

    __tablename__ = "operations"
    __table_args__ = (
        Index("ix_operations_farm_date", "farm_id", "op_date"),
        # The duplicate check: one user's operations of the last minutes.
        Index("ix_operations_author_created", "author", "created_at"),
        # Planned work whose day passed, across farms (the «виконано?» job).
        Index("ix_operations_status_date", "status", "op_date"),
        one_of("status", OperationStatus),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    op_type: Mapped[str] = mapped_column(String(32))
    field_id: Mapped[str | None] = mapped_column(String(64))
    crop_id: Mapped[str | None] = mapped_column(String(64))
    #: The one number a short view shows (the first of rate, yield, amount, area).
    quantity: Mapped[float | None] = mapped_column(Float)
    unit: Mapped[str | None] = mapped_column(String(16))
    product: Mapped[str | None] = mapped_column(String(128))
    #: Kept apart: per hectare (or per tonne of seed, or mm of water) ...
    rate: Mapped[float | None] = mapped_column(Float)
    rate_unit: Mapped[str | None] = mapped_column(String(16))
    #: ... the total applied or harvested ...
    amount: Mapped[float | None] = mapped_column(Float)
    amount_unit: Mapped[str | None] = mapped_column(String(16))
    #: ... the area treated, and the yield of a harvest.
    area_ha: Mapped[float | None] = mapped_column(Float)
    yield_t_ha: Mapped[float | None] = mapped_column(Float)
    op_date: Mapped[date] = mapped_column(Date)
    status: Mapped[OperationStatus] = mapped_column(String(16))
    source_chat_id: Mapped[int | None] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    #: "<chat>:<message>:<field>" — unique, so a redelivered update or a second tap
    #: on ✅ writes nothing more (NULL for operations entered another way).
    source_key: Mapped[str | None] = mapped_column(String(96), unique=True)
    author: Mapped[str] = mapped_column(String(64))
    #: Set while the operation waits for an operator to approve an unknown name.
    pending_term_id: Mapped[int | None] = mapped_column(
        ForeignKey("pending_terms.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    #: Set when the entry is deleted: it is kept (an operator can restore it) but no
    #: query sees it unless it asks with ``include_deleted`` (``_hide_deleted`` below).
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: The weather at a spraying's time from the forecast cache (the application
    #: record pesticide rules ask for): temperature, wind, humidity, rain after.
    weather: Mapped[dict[str, Any] | None] = mapped_column(Json)
    #: When a planned entry whose day passed was offered as «виконано?» (once).
    reminded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class OperationRevisionRow(Base):
    """One change of a journal entry: who, when, what it was before and after, and
    from which message or button (farmOS keeps revisions of every log the same way)."""

    __tablename__ = "operation_revisions"
    __table_args__ = (
        Index("ix_operation_revisions_operation", "operation_id", "id"),
        Index("ix_operation_revisions_farm_created", "farm_id", "created_at"),
        # ↩️ finds what one press changed.
        Index("ix_operation_revisions_draft", "draft_id"),
        one_of("kind", RevisionKind),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    #: The entry (``operations.id``); its row stays while deleted, so this always resolves.
    operation_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[RevisionKind] = mapped_column(String(16))
    #: The user who made the change (a farmer or an operator).
    actor: Mapped[str] = mapped_column(String(64))
    #: The entry's values before and after (None before a write, after a delete).
    before: Mapped[dict[str, Any] | None] = mapped_column(Json)
    after: Mapped[dict[str, Any] | None] = mapped_column(Json)
    #: The card (``operation_drafts.id``) whose press made the change, if any.
    draft_id: Mapped[int | None] = mapped_column(Integer)
    #: Where it came from: "<chat>:<message>" of the message, or "undo" for a ↩️.
    source: Mapped[str | None] = mapped_column(String(64))
    #: Unique: a redelivered update or a second tap records (and applies) nothing more.
    source_key: Mapped[str | None] = mapped_column(String(96), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


@event.listens_for(Session, "do_orm_execute")
def _hide_deleted(state: ORMExecuteState) -> None:
    """A deleted journal entry is out of the journal, plan/fact and every report: each
    ORM query leaves it out unless run with ``execution_options(include_deleted=True)``
    (the edits that restore it or show its history)."""
    if (
        state.is_select
        and not state.is_column_load
        and not state.is_relationship_load
        and not state.execution_options.get("include_deleted", False)
    ):
        state.statement = state.statement.options(
            with_loader_criteria(
                OperationRow, OperationRow.deleted_at.is_(None), include_aliases=True
            )
        )


class SensorReadingRow(Base):
    __tablename__ = "sensor_readings"
    __table_args__ = (
        UniqueConstraint("farm_id", "sensor_id", "sensor_type", "measured_at"),
        Index("ix_sensor_readings_farm_type_time", "farm_id", "sensor_type", "measured_at"),
        # The sensor watch (pipeline/farm/sensors/alerts.py) starts from the farms that sent
        # readings lately: one range over the recent window, read from the index alone.
        Index("ix_sensor_readings_recent", "measured_at", "farm_id", "sensor_type"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    field_id: Mapped[str | None] = mapped_column(String(64))
    sensor_id: Mapped[str] = mapped_column(String(64))
    sensor_type: Mapped[str] = mapped_column(String(32))  # soil_moisture | temperature | ...
    value: Mapped[float] = mapped_column(Float)
    unit: Mapped[str] = mapped_column(String(16))
    measured_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    source: Mapped[str] = mapped_column(String(32))  # api | csv | thingsboard ...
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class SensorHourRow(Base):
    """Hourly rollup of one probe's readings of one type: count, min, max and sum of
    the readings in UTC hour ``hour`` (hours since the epoch). Maintained by the
    ingest in the same transaction as the readings (db/repositories/sensor_rollups.py),
    so charts and sheets of long periods read hours, not readings. ``field_key`` is
    the reading's field id, "" for a probe without a field (a key column cannot be
    NULL)."""

    __tablename__ = "sensor_hours"

    farm_id: Mapped[str] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), primary_key=True
    )
    sensor_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    field_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    sensor_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    readings: Mapped[int] = mapped_column(Integer)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
    total: Mapped[float] = mapped_column(Float)


class AlertRow(Base):
    """One episode: a threshold breach (opened on the first bad reading, closed once
    the value is back past the threshold by the hysteresis margin) or a silent probe
    (kind "silent", closed by its next reading). pipeline/farm/sensors/alerts.py."""

    __tablename__ = "alerts"
    __table_args__ = (
        Index("ix_alerts_open", "farm_id", "sensor_type", "field_id", "ended_at"),
        # The watcher's messages due (db/repositories/sensor_watch.py due_alerts): open
        # and untold (NULL, NULL), or ended lately (a range of ended_at).
        Index("ix_alerts_due", "ended_at", "notified_at"),
        one_of("kind", AlertKind),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    field_id: Mapped[str | None] = mapped_column(String(64))
    sensor_type: Mapped[str] = mapped_column(String(32))
    kind: Mapped[AlertKind] = mapped_column(String(16))
    value: Mapped[float] = mapped_column(Float)
    threshold: Mapped[float] = mapped_column(Float)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: The probe: the key of a field-less or silent probe's episodes; for a field's
    #: episode the worst probe when it opened.
    sensor_id: Mapped[str | None] = mapped_column(String(64))
    ended_value: Mapped[float | None] = mapped_column(Float)
    recovery_notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class FarmTokenRow(Base):
    """Bearer tokens for the readings endpoint; only a hash is stored."""

    __tablename__ = "farm_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    farm_id: Mapped[str] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), index=True
    )
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class WeatherHourRow(Base):
    """One hour of Open-Meteo's forecast for one location cell (docs/weather.md): the
    point rounded to 0.05 degrees, as integer hundredths; ``hour`` in UTC."""

    __tablename__ = "weather_hours"
    #: The job forgets old hours by time, whatever their cell.
    __table_args__ = (Index("ix_weather_hours_hour", "hour"),)

    lat_e2: Mapped[int] = mapped_column(Integer, primary_key=True)
    lon_e2: Mapped[int] = mapped_column(Integer, primary_key=True)
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    temperature: Mapped[float | None] = mapped_column(Float)
    humidity: Mapped[float | None] = mapped_column(Float)
    precipitation: Mapped[float | None] = mapped_column(Float)
    precipitation_probability: Mapped[float | None] = mapped_column(Float)
    wind_speed: Mapped[float | None] = mapped_column(Float)
    soil_temperature: Mapped[float | None] = mapped_column(Float)
    fetched_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class WeatherWarningRow(Base):
    """A warning Stepan wrote first (docs/weather.md): one per farm, kind and local
    day, claimed before it is sent, so an hourly job tells a farmer of a frost once."""

    __tablename__ = "weather_warnings"
    __table_args__ = (one_of("kind", WeatherWarningKind),)

    farm_id: Mapped[str] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[WeatherWarningKind] = mapped_column(String(16), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
