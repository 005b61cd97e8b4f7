"""Handoff decisions (table ``handoffs``) and their figures for the success metrics.

The use case owns the transaction (``db/uow.py``); nothing here commits. The figures
answer the ADR's stage B question, "what share of traffic is handed off", from the
same window of ``interactions`` (every message Stepan handled).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import HandoffRow, InteractionRow

#: Outcomes of a question that was sent but got no answer from the peer.
UNREACHED = ("timeout", "no_responder", "offline")


async def add_offer(
    session: AsyncSession,
    *,
    user_id: str,
    peer: str,
    domain: str,
    language: str,
    question: str,
    partial: bool,
) -> int:
    """A question offered to ``peer``, waiting for the farmer's yes or no."""
    row = HandoffRow(
        direction="out",
        user_id=user_id,
        peer=peer,
        domain=domain,
        language=language,
        question=question,
        partial=partial,
    )
    session.add(row)
    await session.flush()
    return row.id


@dataclass(frozen=True, slots=True)
class Offer:
    id: int
    peer: str
    domain: str
    language: str
    question: str
    partial: bool


async def decide(
    session: AsyncSession, *, handoff_id: int, user_id: str, consent: bool, at: datetime
) -> Offer | None:
    """Record the farmer's answer to their own pending offer, once.

    Returns the offer (with its question) to the one caller whose answer counted;
    None for somebody else's offer, an unknown id or a second press. The question
    and the user are blanked in the same statement: from here on only the decision
    is kept.
    """
    row = await session.get(HandoffRow, handoff_id)
    if row is None or row.user_id != user_id or row.direction != "out" or row.consent is not None:
        return None
    offer = Offer(row.id, row.peer, row.domain, row.language, row.question or "", row.partial)
    result = await session.execute(
        update(HandoffRow)
        .where(HandoffRow.id == handoff_id, HandoffRow.consent.is_(None))
        .values(
            consent=consent,
            decided_at=at,
            # Once decided, the row is a figure, not a record about somebody.
            user_id=None,
            question=None,
            outcome=None if consent else "refused",
            finished_at=None if consent else at,
        )
        .execution_options(synchronize_session=False)
    )
    # A concurrent press (another instance) got there first.
    if int(getattr(result, "rowcount", 0) or 0) != 1:
        return None
    return offer


async def expire_offers_before(session: AsyncSession, cutoff: datetime) -> int:
    """Offers nobody answered since ``cutoff`` lose their question and their user
    (the raw-text retention of docs/OPERATIONS.md); they count as pending still."""
    result = await session.execute(
        update(HandoffRow)
        .where(
            HandoffRow.direction == "out",
            HandoffRow.consent.is_(None),
            HandoffRow.created_at < cutoff,
            HandoffRow.question.is_not(None),
        )
        .values(question=None, user_id=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def finish(
    session: AsyncSession,
    *,
    handoff_id: int,
    sent: bool,
    outcome: str,
    privacy_level: str | None,
    latency_ms: float | None,
    at: datetime,
) -> None:
    await session.execute(
        update(HandoffRow)
        .where(HandoffRow.id == handoff_id)
        .values(
            sent=sent,
            outcome=outcome,
            privacy_level=privacy_level,
            latency_ms=latency_ms,
            finished_at=at,
        )
        .execution_options(synchronize_session=False)
    )


async def add_served(
    session: AsyncSession,
    *,
    peer: str,
    domain: str,
    language: str,
    outcome: str,
    privacy_level: str | None,
    latency_ms: float,
    at: datetime,
) -> None:
    """A contract another agent sent Stepan: what was asked of it, never by whom."""
    session.add(
        HandoffRow(
            direction="in",
            user_id=None,
            peer=peer[:32],
            domain=domain[:32],
            language=language[:8],
            sent=True,
            outcome=outcome,
            privacy_level=privacy_level,
            latency_ms=latency_ms,
            created_at=at,
            finished_at=at,
        )
    )
    await session.flush()


@dataclass(frozen=True, slots=True)
class PeerFigures:
    offered: int = 0
    consented: int = 0
    sent: int = 0
    answered: int = 0


@dataclass(frozen=True, slots=True)
class HandoffFigures:
    """Handoffs in one window, beside the messages Stepan handled in it."""

    messages: int
    offered: int
    consented: int
    refused: int
    pending: int
    sent: int
    answered: int
    unreached: int
    failed: int
    #: Contracts other agents sent Stepan, and how many it answered.
    served: int
    served_answered: int
    by_peer: dict[str, PeerFigures] = field(default_factory=dict)

    @property
    def share_offered(self) -> float:
        """Messages that got a peer offered, of all messages."""
        return self.offered / self.messages if self.messages else 0.0

    @property
    def share_handed_off(self) -> float:
        """Messages whose question actually left for a peer (the ADR's stage B figure)."""
        return self.sent / self.messages if self.messages else 0.0

    @property
    def consent_rate(self) -> float:
        decided = self.consented + self.refused
        return self.consented / decided if decided else 0.0


async def figures(session: AsyncSession, *, since: datetime, until: datetime) -> HandoffFigures:
    """Every count of the window [since, until)."""
    messages = await session.scalar(
        select(func.count())
        .select_from(InteractionRow)
        .where(InteractionRow.created_at >= since, InteractionRow.created_at < until)
    )
    rows = (
        await session.execute(
            select(
                HandoffRow.direction,
                HandoffRow.peer,
                HandoffRow.consent,
                HandoffRow.sent,
                HandoffRow.outcome,
                func.count(),
            )
            .where(
                # Both directions named: the window is read from
                # ix_handoffs_direction_created, not from the whole table.
                HandoffRow.direction.in_(("out", "in")),
                HandoffRow.created_at >= since,
                HandoffRow.created_at < until,
            )
            .group_by(
                HandoffRow.direction,
                HandoffRow.peer,
                HandoffRow.consent,
                HandoffRow.sent,
                HandoffRow.outcome,
            )
        )
    ).all()
    totals = dict.fromkeys(
        ("offered", "consented", "refused", "pending", "sent", "answered", "unreached", "failed"), 0
    )
    served = served_answered = 0
    peers: dict[str, dict[str, int]] = {}
    for direction, peer, consent, sent, outcome, count in rows:
        if direction == "in":
            served += count
            served_answered += count if outcome == "answered" else 0
            continue
        mine = peers.setdefault(
            peer, dict.fromkeys(("offered", "consented", "sent", "answered"), 0)
        )
        totals["offered"] += count
        mine["offered"] += count
        if consent is None:
            totals["pending"] += count
        elif consent:
            totals["consented"] += count
            mine["consented"] += count
        else:
            totals["refused"] += count
        if sent:
            totals["sent"] += count
            mine["sent"] += count
        if outcome == "answered":
            totals["answered"] += count
            mine["answered"] += count
        elif outcome in UNREACHED:
            totals["unreached"] += count
        elif outcome == "error":
            totals["failed"] += count
    return HandoffFigures(
        messages=int(messages or 0),
        served=served,
        served_answered=served_answered,
        by_peer={peer: PeerFigures(**counts) for peer, counts in sorted(peers.items())},
        **totals,
    )
