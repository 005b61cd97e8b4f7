"""SQLAlchemy 2 models. SQL is the primary store (DESIGN.md); the schema changes
only through Alembic migrations in ``migrations/``."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Explicit constraint names keep migrations identical on SQLite and PostgreSQL and
# let batch mode (SQLite) find the constraints it must recreate.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON
DEFAULT_TIMEZONE = "Europe/Kyiv"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _now() -> Any:
    return func.now()


class UserProfileRow(Base):
    """Seed section 4. Scalars are columns; lists and nested objects are JSON."""

    __tablename__ = "user_profiles"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    schema_version: Mapped[int] = mapped_column(Integer, default=1)
    agent: Mapped[str] = mapped_column(String(32), default="agromatrix")
    name: Mapped[str | None] = mapped_column(String(128))
    expertise_level: Mapped[str] = mapped_column(String(16), default="intermediate")
    # True once an operator set the level by hand: auto-upgrade never overrides it.
    expertise_locked: Mapped[bool] = mapped_column(default=False, server_default=false())
    preferred_language: Mapped[str] = mapped_column(String(8), default="uk")
    preferred_style: Mapped[str] = mapped_column(String(16), default="conversational")
    last_seen: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    interaction_count: Mapped[int] = mapped_column(Integer, default=0)
    known_intents: Mapped[list[str]] = mapped_column(Json, default=list)
    context_notes: Mapped[list[str]] = mapped_column(Json, default=list)
    farm_profile_ref: Mapped[str | None] = mapped_column(String(96))
    recent_topics: Mapped[list[dict[str, str]]] = mapped_column(Json, default=list)
    operator: Mapped[bool] = mapped_column(default=False)
    # False once Telegram says the user blocked the bot; nothing is sent to them then.
    active: Mapped[bool] = mapped_column(default=True)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )
    # Set on a profile Stepan created itself while the memory-service's copy was not
    # known: the first flush reads that copy and merges before it writes (never a
    # blank profile over a rich one). {"user": [...], "farm": [...]} lists the fields
    # edited here since, which keep the local value. NULL: nothing to merge.
    remote_merge: Mapped[dict[str, list[str]] | None] = mapped_column(Json(none_as_null=True))


class FarmProfileRow(Base):
    """Seed section 5. ``farm_id`` is stable: it never changes when a farm is renamed."""

    __tablename__ = "farm_profiles"

    farm_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        ForeignKey("user_profiles.user_id", ondelete="CASCADE"), unique=True
    )
    schema_version: Mapped[int] = mapped_column(Integer, default=1)
    farm_name: Mapped[str | None] = mapped_column(String(128))
    field_ids: Mapped[list[str]] = mapped_column(Json, default=list)
    crop_ids: Mapped[list[str]] = mapped_column(Json, default=list)
    active_integrations: Mapped[list[str]] = mapped_column(Json, default=list)
    seasonal_context: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    iot_sensors: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    typical_intents: Mapped[list[str]] = mapped_column(Json, default=list)
    alert_thresholds: Mapped[dict[str, float]] = mapped_column(Json, default=dict)
    dict_pending_count: Mapped[int] = mapped_column(Integer, default=0)
    #: An IANA zone: every time a farmer reads and every day boundary of the farm.
    timezone: Mapped[str] = mapped_column(
        String(64), default=DEFAULT_TIMEZONE, server_default=DEFAULT_TIMEZONE
    )
    #: An oblast id of rules/knowledge/zones.toml ("region:poltava"): agronomy answers
    #: use its zone. Stepan's own column, not part of the seed's JSON.
    region: Mapped[str | None] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )


def _crew_size(context: Any) -> int:
    return len(context.get_current_parameters().get("crew") or [])


class InteractionRow(Base):
    """One handled message: routing metadata kept, raw text dropped after 7 days."""

    __tablename__ = "interactions"
    __table_args__ = (
        Index("ix_interactions_user_created", "user_id", "created_at"),
        # /stats (pipeline/learning/stats.py): the period's counts read from the index
        # alone, and latency percentiles walked in order per mode, never sorted.
        Index("ix_interactions_stats", "created_at", "mode", "eval_warnings", "crew_size"),
        Index("ix_interactions_latency", "mode", "latency_ms", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), index=True)
    user_id: Mapped[str] = mapped_column(String(64))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    mode: Mapped[str] = mapped_column(String(8))
    intent: Mapped[str] = mapped_column(String(32))
    crew: Mapped[list[str]] = mapped_column(Json, default=list)
    #: len(crew), kept beside it so /stats counts 1-2-crew requests from an index.
    crew_size: Mapped[int | None] = mapped_column(Integer, default=_crew_size)
    confidence: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(128))
    latency_ms: Mapped[float] = mapped_column(Float)
    text: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )
    #: Eval rules (docs/learning.md): failed warnings and infos, the failed rule ids;
    #: None for rows written before the rules existed.
    eval_warnings: Mapped[int | None] = mapped_column(Integer)
    eval_infos: Mapped[int | None] = mapped_column(Integer)
    eval_failed: Mapped[list[str] | None] = mapped_column(Json)
    #: The Telegram update this interaction answered: a replayed update (its handler
    #: died mid-way) is not counted twice. None for the console and peers.
    update_id: Mapped[int | None] = mapped_column(BigInteger, unique=True, index=True)


class UpdateInboxRow(Base):
    """Every Telegram update, claimed by ``update_id`` before its side effects
    (bot/inbox.py). A row is handled by whoever holds its lease; a duplicate finds
    the row and is dropped; a row whose holder died is replayed after its lease."""

    __tablename__ = "update_inbox"
    __table_args__ = (Index("ix_update_inbox_status_update", "status", "update_id"),)

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    #: The update as Telegram sent it (JSON), for a replay; blanked once handled.
    payload: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(8))  # "handling" | "done"
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    outcome: Mapped[str | None] = mapped_column(String(16))  # "ok" | "error" | "poison"


class OutboxRow(Base):
    """A profile change waiting to reach the memory-service (DESIGN.md: SQL is the
    truth; the outbox row is written in the same transaction as the change)."""

    __tablename__ = "memory_outbox"
    __table_args__ = (Index("ix_memory_outbox_pending", "sent_at", "id"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    fact_key: Mapped[str] = mapped_column(String(128))
    operation: Mapped[str] = mapped_column(String(16))  # "upsert" | "delete"
    payload: Mapped[dict[str, Any] | None] = mapped_column(Json)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # "pending" (to send), "config_error" (the service refused Stepan's credentials:
    # kept, retried, shown in /status) or "dead" (refused for good: 400/405/422; kept
    # with last_error for an operator, never blocks the user's later rows).
    state: Mapped[str] = mapped_column(String(16), default="pending", server_default="pending")


class TombstoneRow(Base):
    """A user who said /forget: their memory-service copy is never hydrated again
    (the copy may outlive the forget until the delete is flushed). Only a copy written
    after ``forgotten_at`` (a new profile) may ever be read back."""

    __tablename__ = "memory_tombstones"

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    forgotten_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # When the memory-service confirmed both deletes (NULL: not yet).
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class JobRunRow(Base):
    """One row per scheduled job: its last run and outcome, and the lock that makes
    it run once when several instances share the database."""

    __tablename__ = "job_runs"

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    locked_by: Mapped[str | None] = mapped_column(String(64))
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_outcome: Mapped[str | None] = mapped_column(String(16))  # "ok" | "error" | "skipped"
    last_detail: Mapped[str | None] = mapped_column(String(256))
    runs: Mapped[int] = mapped_column(Integer, default=0)


class JobSlotRow(Base):
    """One row per scheduled run: the job's trigger time, claimed by the instance
    that runs it, so with several instances each slot runs once (bot/scheduler.py)."""

    __tablename__ = "job_slots"

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    claimed_by: Mapped[str] = mapped_column(String(64))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: "ok" | "error" once finished; "skipped" when the previous run still held the job.
    outcome: Mapped[str | None] = mapped_column(String(16))


# --- The farm's data (operations journal, dictionary, sensors) -------------------


class FieldRow(Base):
    """A field of a farm. ``field_id`` (e.g. ``field:north-01``) is stable per farm."""

    __tablename__ = "fields"
    __table_args__ = (UniqueConstraint("farm_id", "field_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    field_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(128))
    area_ha: Mapped[float | None] = mapped_column(Float)
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
    __table_args__ = (UniqueConstraint("farm_id", "kind", "canonical_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str | None] = mapped_column(
        ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(16))  # field | crop | operation | product
    canonical_id: Mapped[str] = mapped_column(String(64))
    display: Mapped[str] = mapped_column(String(128))
    synonyms: Mapped[list[str]] = mapped_column(Json, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class PendingTermRow(Base):
    """A name Stepan did not know: it waits for an operator instead of being invented."""

    __tablename__ = "pending_terms"
    __table_args__ = (UniqueConstraint("farm_id", "kind", "term"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    term: Mapped[str] = mapped_column(String(128))  # normalised
    first_message: Mapped[str] = mapped_column(Text)
    times_seen: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    canonical_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )


class OperationDraftRow(Base):
    """An operation read from a message, shown as a card until the user confirms it."""

    __tablename__ = "operation_drafts"
    __table_args__ = (Index("ix_operation_drafts_user_created", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    payload: Mapped[dict[str, Any]] = mapped_column(Json)
    status: Mapped[str] = mapped_column(String(16), default="draft")  # draft|written|cancelled
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class OperationRow(Base):
    """The farm journal. One source message writes each of its operations once."""

    __tablename__ = "operations"
    __table_args__ = (
        Index("ix_operations_farm_date", "farm_id", "op_date"),
        # The duplicate check: one user's operations of the last minutes.
        Index("ix_operations_author_created", "author", "created_at"),
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
    status: Mapped[str] = mapped_column(String(16))  # planned | done
    source_chat_id: Mapped[int | None] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    #: "<chat>:<message>:<field>" — unique, so a redelivered update or a second tap
    #: on ✅ writes nothing more (NULL for operations entered another way).
    source_key: Mapped[str | None] = mapped_column(String(96), unique=True)
    author: Mapped[str] = mapped_column(String(64))
    #: Set while the operation waits for an operator to approve an unknown name.
    pending_term_id: Mapped[int | None] = mapped_column(
        ForeignKey("pending_terms.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class SensorReadingRow(Base):
    __tablename__ = "sensor_readings"
    __table_args__ = (
        UniqueConstraint("farm_id", "sensor_id", "sensor_type", "measured_at"),
        Index("ix_sensor_readings_farm_type_time", "farm_id", "sensor_type", "measured_at"),
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


class AlertRow(Base):
    """One episode: a threshold breach (opened on the first bad reading, closed once
    the value is back past the threshold by the hysteresis margin) or a silent probe
    (kind "silent", closed by its next reading). pipeline/farm/alerts.py."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_open", "farm_id", "sensor_type", "field_id", "ended_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    field_id: Mapped[str | None] = mapped_column(String(64))
    sensor_type: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))  # below_min | above_max | silent
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
    farm_id: Mapped[str] = mapped_column(ForeignKey("farm_profiles.farm_id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class HandoffRow(Base):
    """One handoff decision (ADR "DAARWIZZ orchestration mode", stage A checklist):
    a question offered to a peer agent ("out") or a contract a peer sent Stepan ("in").

    The question and the farmer's id are kept only while the offer waits for an
    answer; both are blanked once consent is given or refused (and by /forget), so a
    decided row is a figure, not a record about somebody. An "in" row never names
    the asking agent's user.
    """

    __tablename__ = "handoffs"
    __table_args__ = (Index("ix_handoffs_direction_created", "direction", "created_at"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    direction: Mapped[str] = mapped_column(String(3))  # out | in
    user_id: Mapped[str | None] = mapped_column(String(64), index=True)
    peer: Mapped[str] = mapped_column(String(32))
    domain: Mapped[str] = mapped_column(String(32))
    #: Stepan answered part of the message and offered the rest.
    partial: Mapped[bool] = mapped_column(default=False, server_default=false())
    language: Mapped[str] = mapped_column(String(8))
    question: Mapped[str | None] = mapped_column(Text)
    #: None until the farmer presses yes or no.
    consent: Mapped[bool | None] = mapped_column()
    sent: Mapped[bool] = mapped_column(default=False, server_default=false())
    #: out: answered | timeout | no_responder | offline | error | refused;
    #: in: answered, or the error code sent back (invalid_contract, out_of_domain ...)
    outcome: Mapped[str | None] = mapped_column(String(32))
    privacy_level: Mapped[str | None] = mapped_column(String(16))
    latency_ms: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AgronomistQuestionRow(Base):
    """A question the knowledge base could not answer surely (docs/knowledge.md): offered
    to the human agronomist, sent to the operators on the farmer's yes, answered with
    ``/answer N``. The answer is kept as a candidate card for review."""

    __tablename__ = "agronomist_questions"
    __table_args__ = (Index("ix_agronomist_questions_status", "status", "created_at"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    language: Mapped[str] = mapped_column(String(8))
    question: Mapped[str] = mapped_column(Text)
    #: offered | pending (sent to the operators) | refused | answered
    status: Mapped[str] = mapped_column(String(16))
    #: The question and farm context as the operators saw them (sanitised).
    card: Mapped[str | None] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(Text)
    answered_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    asked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# --- Learning from mistakes (docs/learning.md) --------------------------------------


class FeedbackRow(Base):
    """👍 / 👎 / 🛠 under a reply, once per person and reply (a double tap counts once)."""

    __tablename__ = "feedback"
    __table_args__ = (
        UniqueConstraint("trace_id", "user_id", name="uq_feedback_trace_user"),
        Index("ix_feedback_created", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[str] = mapped_column(String(8))  # up | down | fix
    #: 👎's optional follow-up: wrong | not_asked | too_long | language
    reason: Mapped[str | None] = mapped_column(String(16))
    intent: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class LearningRow(Base):
    """A short rule learned from 👎, 🛠 or a correction; the newest go into LLM prompts."""

    __tablename__ = "learnings"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    source: Mapped[str] = mapped_column(String(16))  # negative | fixit | correction
    intent: Mapped[str | None] = mapped_column(String(32))
    rule: Mapped[str] = mapped_column(Text)
    trace_id: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )


class CorrectionRow(Base):
    """A reply marked as misrouted: the message and its right mode, intent and crew,
    kept as a labelled example for the nightly job (docs/learning.md)."""

    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), unique=True)
    user_id: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(16))  # operator | farmer
    text: Mapped[str] = mapped_column(Text)
    was_mode: Mapped[str] = mapped_column(String(8))
    was_intent: Mapped[str] = mapped_column(String(32))
    mode: Mapped[str] = mapped_column(String(8))
    intent: Mapped[str] = mapped_column(String(32))
    crew: Mapped[list[str]] = mapped_column(Json, default=list)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )


class RuleOverlayRow(Base):
    """One version of the routing-rules overlay: the whole list of terms added to the
    packaged classifier rules. The newest version not rolled back is in force."""

    __tablename__ = "rule_overlays"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    #: [{"intent": ..., "kind": "trigger" | "keyword", "term": ...}, ...]
    terms: Mapped[list[dict[str, str]]] = mapped_column(Json, default=list)
    proposal_id: Mapped[int | None] = mapped_column(Integer)
    created_by: Mapped[str] = mapped_column(String(64))
    rolled_back: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class ProposalRow(Base):
    """A routing change the nightly job proposed, with the accuracy it measured."""

    __tablename__ = "rule_proposals"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    intent: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))  # trigger | keyword
    term: Mapped[str] = mapped_column(String(128))
    support: Mapped[int] = mapped_column(Integer)
    dev_before: Mapped[float] = mapped_column(Float)
    dev_after: Mapped[float] = mapped_column(Float)
    corrections_before: Mapped[float] = mapped_column(Float)
    corrections_after: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(12), default="pending")
    decided_by: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
