"""SQLAlchemy 2 models. SQL is the primary store (DESIGN.md); the schema changes
only through Alembic migrations in ``migrations/``.

Users, farms, interactions and the delivery machinery (inbox, outbox, jobs) live
here; the farm's data in ``db/farm_models.py`` and the review/learning tables in
``db/learning_models.py``, re-exported so ``from db.models import X`` finds every row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
    text,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import DEFAULT_TIMEZONE as DEFAULT_TIMEZONE
from db.base import Base as Base
from db.base import Json, _now
from db.farm_models import *  # noqa: F403 - every row importable from db.models
from db.learning_models import *  # noqa: F403
from db.recall_models import *  # noqa: F403
from db.states import (
    InboxOutcome,
    InboxStatus,
    JobOutcome,
    OutboxOperation,
    OutboxState,
    RouteMode,
    one_of,
)


class UserProfileRow(Base):
    """Seed section 4. Scalars are columns; lists and nested objects are JSON."""

    __tablename__ = "user_profiles"
    #: The weather job's active farmers: those seen lately, not every farmer ever.
    __table_args__ = (Index("ix_user_profiles_last_seen", "last_seen"),)

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    schema_version: Mapped[int] = mapped_column(Integer, default=1)
    agent: Mapped[str] = mapped_column(String(32), default="agromatrix")
    name: Mapped[str | None] = mapped_column(String(128))
    expertise_level: Mapped[str] = mapped_column(String(16), default="novice")
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
    # False once the farmer turned the weather warnings off in /me (Stepan's own
    # setting, like expertise_locked: not in the memory-service's copy).
    weather_warnings: Mapped[bool] = mapped_column(default=True, server_default=true())
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
    #: The farm's point (WGS84 degrees) from a Telegram location (docs/weather.md);
    #: None: its oblast's centre stands in.
    latitude: Mapped[float | None] = mapped_column(Float)
    longitude: Mapped[float | None] = mapped_column(Float)
    #: True once an operator set the season phase by hand: the journal no longer
    #: infers it until the operator chooses "auto" (like ``expertise_locked``).
    phase_locked: Mapped[bool] = mapped_column(default=False, server_default=false())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )


def _crew_size(context: Any) -> int:
    return len(context.get_current_parameters().get("crew") or [])


class InteractionRow(Base):
    """One handled message: routing metadata kept, raw text dropped after 7 days."""

    __tablename__ = "interactions"
    __table_args__ = (
        # A farmer's history by time; with the intent, the nightly profile learning
        # counts intents from the index alone (pipeline/memory/habits/learner.py): a table
        # lookup per interaction was most of each chunk's time at 5 million rows.
        Index("ix_interactions_user_created_intent", "user_id", "created_at", "intent"),
        # /stats (pipeline/learning/stats.py): the period's counts read from the index
        # alone, and latency percentiles walked in order per mode, never sorted.
        Index("ix_interactions_stats", "created_at", "mode", "eval_warnings", "crew_size"),
        Index("ix_interactions_latency", "mode", "latency_ms", "created_at"),
        one_of("mode", RouteMode),
        # Text retention (bot/retention.py): only rows that still hold their text, so
        # each chunk finds the next expired ones without walking the cleared millions.
        Index(
            "ix_interactions_text_kept",
            "created_at",
            "id",
            sqlite_where=text("text IS NOT NULL"),
            postgresql_where=text("text IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), index=True)
    user_id: Mapped[str] = mapped_column(String(64))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    mode: Mapped[RouteMode] = mapped_column(String(8))
    intent: Mapped[str] = mapped_column(String(32))
    crew: Mapped[list[str]] = mapped_column(Json, default=list)
    #: len(crew), kept beside it so /stats counts 1-2-crew requests from an index.
    crew_size: Mapped[int | None] = mapped_column(Integer, default=_crew_size)
    confidence: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(128))
    latency_ms: Mapped[float] = mapped_column(Float)
    text: Mapped[str | None] = mapped_column(Text)
    # Periods of created_at are read through ix_interactions_stats (it leads with it).
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
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
    (bot/transport/inbox.py). A row is handled by whoever holds its lease; a duplicate finds
    the row and is dropped; a row whose holder died is replayed after its lease."""

    __tablename__ = "update_inbox"
    __table_args__ = (
        Index("ix_update_inbox_status_update", "status", "update_id"),
        one_of("status", InboxStatus),
        one_of("outcome", InboxOutcome),
    )

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    #: The update as Telegram sent it (JSON), for a replay; blanked once handled.
    payload: Mapped[str | None] = mapped_column(Text)
    status: Mapped[InboxStatus] = mapped_column(String(8))
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    outcome: Mapped[InboxOutcome | None] = mapped_column(String(16))
    #: Parts of a reply in several parts that Telegram took before the last one
    #: (bot/delivery/render.py): a replay after a crash sends only the rest.
    replies_sent: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class TelegramOutboxRow(Base):
    """A Bot API call waiting out Telegram's flood control (``retry_after``), kept so
    a restart does not lose it (bot/delivery/deferred.py). The instance waiting holds its
    lease; once the holder is gone any instance sends it when due, then deletes it."""

    __tablename__ = "telegram_outbox"
    __table_args__ = (Index("ix_telegram_outbox_due", "not_before", "id"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    #: The aiogram method's class name (SendMessage ...) and its fields as JSON.
    method: Mapped[str] = mapped_column(String(64))
    payload: Mapped[str] = mapped_column(Text)
    chat_id: Mapped[int | None] = mapped_column(BigInteger)
    #: The update whose reply this is (marked done when the call was kept).
    update_id: Mapped[int | None] = mapped_column(BigInteger)
    not_before: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: A send of it timed out once (Telegram may have taken it): sent once more at most.
    timed_out: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    #: The row of the part before this one in the same reply (bot/delivery/render.py): this
    #: one is sent only once that one is gone. None for a call kept alone.
    after_id: Mapped[int | None] = mapped_column(BigInteger)


class OutboxRow(Base):
    """A profile change waiting to reach the memory-service (DESIGN.md: SQL is the
    truth; the outbox row is written in the same transaction as the change)."""

    __tablename__ = "memory_outbox"
    __table_args__ = (
        Index("ix_memory_outbox_pending", "sent_at", "id"),
        one_of("state", OutboxState),
        one_of("operation", OutboxOperation),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    fact_key: Mapped[str] = mapped_column(String(128))
    operation: Mapped[OutboxOperation] = mapped_column(String(16))
    payload: Mapped[dict[str, Any] | None] = mapped_column(Json)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: OutboxState: a dead row never blocks the user's later rows.
    state: Mapped[OutboxState] = mapped_column(
        String(16), default=OutboxState.PENDING, server_default=OutboxState.PENDING.value
    )


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
    __table_args__ = (one_of("last_outcome", JobOutcome),)

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    locked_by: Mapped[str | None] = mapped_column(String(64))
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_outcome: Mapped[JobOutcome | None] = mapped_column(String(16))
    last_detail: Mapped[str | None] = mapped_column(String(256))
    runs: Mapped[int] = mapped_column(Integer, default=0)


class JobSlotRow(Base):
    """One row per scheduled run: the job's trigger time, claimed by the instance
    that runs it, so with several instances each slot runs once (bot/wiring/scheduler.py)."""

    __tablename__ = "job_slots"
    __table_args__ = (one_of("outcome", JobOutcome),)

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    claimed_by: Mapped[str] = mapped_column(String(64))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: NULL until the run finished; "skipped" when the previous run still held the job.
    outcome: Mapped[JobOutcome | None] = mapped_column(String(16))


# --- The farm's data (operations journal, dictionary, sensors) -------------------
