"""Feedback, learnings and corrections (docs/learning.md). Never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Row, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import (
    CorrectionRow,
    FeedbackRow,
    InteractionRow,
    LearningRow,
    ProposalRow,
    RuleOverlayRow,
    UserProfileRow,
)
from db.states import ProposalStatus, RuleTermKind


async def interaction(session: AsyncSession, trace_id: str) -> InteractionRow | None:
    """The newest interaction of ``trace_id`` (one message has one)."""
    return (
        await session.scalars(
            select(InteractionRow)
            .where(InteractionRow.trace_id == trace_id)
            .order_by(InteractionRow.id.desc())
            .limit(1)
        )
    ).first()


async def last_interaction(session: AsyncSession, user_id: str) -> InteractionRow | None:
    return (
        await session.scalars(
            select(InteractionRow)
            .where(InteractionRow.user_id == user_id)
            .order_by(InteractionRow.id.desc())
            .limit(1)
        )
    ).first()


async def feedback(session: AsyncSession, trace_id: str, user_id: str) -> FeedbackRow | None:
    return (
        await session.scalars(
            select(FeedbackRow).where(
                FeedbackRow.trace_id == trace_id, FeedbackRow.user_id == user_id
            )
        )
    ).first()


async def learning_for(session: AsyncSession, trace_id: str) -> LearningRow | None:
    return (
        await session.scalars(select(LearningRow).where(LearningRow.trace_id == trace_id))
    ).first()


async def newest_learnings(session: AsyncSession, limit: int) -> Sequence[LearningRow]:
    return (
        await session.scalars(select(LearningRow).order_by(LearningRow.id.desc()).limit(limit))
    ).all()


async def delete_learning(session: AsyncSession, learning_id: int) -> bool:
    result = await session.execute(delete(LearningRow).where(LearningRow.id == learning_id))
    return bool(getattr(result, "rowcount", 0))


async def correction(session: AsyncSession, trace_id: str) -> CorrectionRow | None:
    return (
        await session.scalars(select(CorrectionRow).where(CorrectionRow.trace_id == trace_id))
    ).first()


async def corrections(session: AsyncSession) -> Sequence[CorrectionRow]:
    return (await session.scalars(select(CorrectionRow).order_by(CorrectionRow.id))).all()


# --- The routing-rules overlay (rule_overlays): versions, newest in force ----------


async def overlay_in_force(session: AsyncSession) -> RuleOverlayRow | None:
    """The newest version not rolled back (None: the packaged rules alone)."""
    return (
        await session.execute(
            select(RuleOverlayRow)
            .where(RuleOverlayRow.rolled_back.is_(False))
            .order_by(RuleOverlayRow.id.desc())
            .limit(1)
        )
    ).scalar_one_or_none()


async def overlay_versions(session: AsyncSession) -> list[RuleOverlayRow]:
    """Versions still in the table, newest first."""
    return list(
        (await session.execute(select(RuleOverlayRow).order_by(RuleOverlayRow.id.desc()))).scalars()
    )


async def add_overlay(
    session: AsyncSession,
    terms: list[dict[str, str]],
    created_by: str,
    proposal_id: int | None,
    keep: int,
) -> RuleOverlayRow:
    """A new version in force; only the ``keep`` newest versions in force stay, and
    rolled-back ones go (a rollback after a new approval never resurrects them)."""
    row = RuleOverlayRow(terms=terms, created_by=created_by, proposal_id=proposal_id)
    session.add(row)
    await session.flush()
    await session.execute(delete(RuleOverlayRow).where(RuleOverlayRow.rolled_back.is_(True)))
    kept = select(RuleOverlayRow.id).order_by(RuleOverlayRow.id.desc()).limit(keep)
    await session.execute(delete(RuleOverlayRow).where(RuleOverlayRow.id.not_in(kept)))
    return row


async def roll_back_overlay(session: AsyncSession) -> RuleOverlayRow | None:
    """Mark the version in force rolled back; returns it (None: nothing to undo)."""
    row = await overlay_in_force(session)
    if row is not None:
        row.rolled_back = True
        await session.flush()
    return row


async def languages_of(session: AsyncSession, user_ids: Sequence[str]) -> dict[str, str]:
    """The preferred language of each of these users who has a profile."""
    if not user_ids:
        return {}
    rows = await session.execute(
        select(UserProfileRow.user_id, UserProfileRow.preferred_language).where(
            UserProfileRow.user_id.in_(list(user_ids))
        )
    )
    return {user_id: language for user_id, language in rows.all()}


async def correction_examples(session: AsyncSession) -> Sequence[Row[str, str]]:
    """Every correction as (text, intent), oldest first: the nightly job's examples."""
    return (
        await session.execute(
            select(CorrectionRow.text, CorrectionRow.intent).order_by(CorrectionRow.id)
        )
    ).all()


async def pending_proposal_terms(session: AsyncSession) -> set[tuple[str, str, str]]:
    """(intent, kind, term) of the proposals waiting for an operator."""
    rows = await session.execute(
        select(ProposalRow.intent, ProposalRow.kind, ProposalRow.term).where(
            ProposalRow.status == ProposalStatus.PENDING
        )
    )
    return {(intent, kind, term) for intent, kind, term in rows.all()}


async def add_proposal(session: AsyncSession, row: ProposalRow) -> int:
    """Insert the proposal now; its id."""
    session.add(row)
    await session.flush()
    return row.id


async def propose(
    session: AsyncSession,
    *,
    intent: str,
    kind: RuleTermKind,
    term: str,
    support: int,
    dev_before: float,
    dev_after: float,
    corrections_before: float,
    corrections_after: float,
) -> int:
    """Insert a pending proposal of the nightly job now; its id."""
    row = ProposalRow(
        intent=intent,
        kind=kind,
        term=term,
        support=support,
        dev_before=dev_before,
        dev_after=dev_after,
        corrections_before=corrections_before,
        corrections_after=corrections_after,
        status=ProposalStatus.PENDING,
    )
    return await add_proposal(session, row)


async def proposal(session: AsyncSession, proposal_id: int) -> ProposalRow | None:
    return await session.get(ProposalRow, proposal_id)


def add_feedback(session: AsyncSession, row: FeedbackRow) -> None:
    """A verdict, inserted at the commit (one per person and reply: a unique key)."""
    session.add(row)


def add_learning(session: AsyncSession, row: LearningRow) -> None:
    session.add(row)


def add_correction(session: AsyncSession, row: CorrectionRow) -> None:
    session.add(row)
