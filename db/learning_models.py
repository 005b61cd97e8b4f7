"""What leaves a conversation for review: peer handoffs, questions to the agronomist,
feedback, learnings, corrections, and the routing rule overlays and proposals."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    DateTime,
    Float,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, Json, _now
from db.states import (
    AgronomistQuestionStatus,
    CorrectionSource,
    FeedbackReason,
    FeedbackVerdict,
    HandoffDirection,
    LearningSource,
    PrivacyLevel,
    ProposalStatus,
    RouteMode,
    RuleTermKind,
    one_of,
)


class HandoffRow(Base):
    """One handoff decision (ADR "DAARWIZZ orchestration mode", stage A checklist):
    a question offered to a peer agent ("out") or a contract a peer sent Stepan ("in").

    The question and the farmer's id are kept only while the offer waits for an
    answer; both are blanked once consent is given or refused (and by /forget), so a
    decided row is a figure, not a record about somebody. An "in" row never names
    the asking agent's user.
    """

    __tablename__ = "handoffs"
    __table_args__ = (
        Index("ix_handoffs_direction_created", "direction", "created_at"),
        one_of("direction", HandoffDirection),
        one_of("privacy_level", PrivacyLevel),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    direction: Mapped[HandoffDirection] = mapped_column(String(3))
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
    privacy_level: Mapped[PrivacyLevel | None] = mapped_column(String(16))
    latency_ms: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AgronomistQuestionRow(Base):
    """A question the knowledge base could not answer surely (docs/knowledge.md): offered
    to the human agronomist, sent to the operators on the farmer's yes, answered with
    ``/answer N``. The answer is kept as a candidate card for review."""

    __tablename__ = "agronomist_questions"
    __table_args__ = (
        Index("ix_agronomist_questions_status", "status", "created_at"),
        one_of("status", AgronomistQuestionStatus),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    language: Mapped[str] = mapped_column(String(8))
    question: Mapped[str] = mapped_column(Text)
    status: Mapped[AgronomistQuestionStatus] = mapped_column(String(16))
    #: The Telegram file id of the picture the question came with (sent with the card).
    photo_file_id: Mapped[str | None] = mapped_column(String(256))
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
        one_of("verdict", FeedbackVerdict),
        one_of("reason", FeedbackReason),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[FeedbackVerdict] = mapped_column(String(8))
    #: 👎's optional follow-up.
    reason: Mapped[FeedbackReason | None] = mapped_column(String(16))
    intent: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())


class LearningRow(Base):
    """A short rule learned from 👎, 🛠 or a correction; the newest go into LLM prompts."""

    __tablename__ = "learnings"
    __table_args__ = (one_of("source", LearningSource),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    source: Mapped[LearningSource] = mapped_column(String(16))
    intent: Mapped[str | None] = mapped_column(String(32))
    rule: Mapped[str] = mapped_column(Text)
    #: The reply it was learned from: a second 👎 on it finds this one (an index).
    trace_id: Mapped[str | None] = mapped_column(String(32), index=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )


class CorrectionRow(Base):
    """A reply marked as misrouted: the message and its right mode, intent and crew,
    kept as a labelled example for the nightly job (docs/learning.md)."""

    __tablename__ = "corrections"
    __table_args__ = (
        one_of("source", CorrectionSource),
        one_of("was_mode", RouteMode),
        one_of("mode", RouteMode),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    trace_id: Mapped[str] = mapped_column(String(32), unique=True)
    user_id: Mapped[str] = mapped_column(String(64))
    source: Mapped[CorrectionSource] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    was_mode: Mapped[RouteMode] = mapped_column(String(8))
    was_intent: Mapped[str] = mapped_column(String(32))
    mode: Mapped[RouteMode] = mapped_column(String(8))
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
    #: The nightly job skips terms already proposed and waiting (status "pending").
    __table_args__ = (
        Index("ix_rule_proposals_status", "status"),
        one_of("status", ProposalStatus),
        one_of("kind", RuleTermKind),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    intent: Mapped[str] = mapped_column(String(32))
    kind: Mapped[RuleTermKind] = mapped_column(String(16))
    term: Mapped[str] = mapped_column(String(128))
    support: Mapped[int] = mapped_column(Integer)
    dev_before: Mapped[float] = mapped_column(Float)
    dev_after: Mapped[float] = mapped_column(Float)
    corrections_before: Mapped[float] = mapped_column(Float)
    corrections_after: Mapped[float] = mapped_column(Float)
    status: Mapped[ProposalStatus] = mapped_column(String(12), default=ProposalStatus.PENDING)
    decided_by: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=_now(), index=True
    )
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
