"""What Stepan remembers of a conversation: the last answers kept for the section-9
shortcuts, and the per-user rolling window of conversation summaries
(pipeline/recall/, docs/memory.md "Conversation memory")."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, Json, _now
from db.states import AnswerSlot, SummarySource, one_of

__all__ = ["AnswerCacheRow", "ConversationSummaryRow"]


class AnswerCacheRow(Base):
    """One remembered deep answer per user and slot: ``repeat`` (the last one, for the
    same question again within minutes) and ``status`` (the last answer to «який
    статус», for an hour). Overwritten by the next; dropped by /forget."""

    __tablename__ = "answer_cache"
    __table_args__ = (one_of("slot", AnswerSlot),)

    user_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot: Mapped[AnswerSlot] = mapped_column(String(16), primary_key=True)
    intent: Mapped[str] = mapped_column(String(32))
    #: The question's subject signature (pipeline/recall/subject.py).
    subject: Mapped[str] = mapped_column(String(512))
    trace_id: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ConversationSummaryRow(Base):
    """A deep conversation compacted into a few lines (AGENT-PLAN's second level);
    the newest 20 per user are the window prompts read, older ones are folded into
    ``context_notes`` weekly. ``key`` names the copy in the memory-service."""

    __tablename__ = "conversation_summaries"
    __table_args__ = (
        Index("ix_conversation_summaries_user_end", "user_id", "period_end"),
        one_of("source", SummarySource),
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    key: Mapped[str] = mapped_column(String(36), unique=True)
    user_id: Mapped[str] = mapped_column(String(64))
    period_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    period_end: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    text: Mapped[str] = mapped_column(Text)
    intents: Mapped[list[str]] = mapped_column(Json, default=list)
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[SummarySource] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=_now())
