"""SQLAlchemy 2 models. SQL is the primary store (DESIGN.md); the schema changes
only through Alembic migrations in ``migrations/``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
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
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), onupdate=_now()
    )


class InteractionRow(Base):
    """One handled message: routing metadata kept, raw text dropped after 7 days."""

    __tablename__ = "interactions"
    __table_args__ = (Index("ix_interactions_user_created", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), index=True)
    user_id: Mapped[str] = mapped_column(String(64))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    mode: Mapped[str] = mapped_column(String(8))
    intent: Mapped[str] = mapped_column(String(32))
    crew: Mapped[list[str]] = mapped_column(Json, default=list)
    confidence: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(128))
    latency_ms: Mapped[float] = mapped_column(Float)
    text: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )


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
