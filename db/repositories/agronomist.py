"""The agronomist desk's questions (table ``agronomist_questions``).

The use case owns the transaction (``db/uow.py``); nothing here commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import AgronomistQuestionRow
from db.states import AgronomistQuestionStatus


@dataclass(frozen=True, slots=True)
class Question:
    id: int
    user_id: str
    language: str
    question: str
    status: str
    card: str | None
    #: The Telegram file id of the picture asked about, if any.
    photo: str | None = None


#: States in which the agronomist's answer is still taken (a late one too).
ANSWERABLE = (AgronomistQuestionStatus.PENDING, AgronomistQuestionStatus.EXPIRED)


def _question(row: AgronomistQuestionRow, status: str | None = None) -> Question:
    return Question(
        row.id,
        row.user_id,
        row.language,
        row.question,
        status or row.status,
        row.card,
        row.photo_file_id,
    )


async def add_offer(
    session: AsyncSession,
    *,
    user_id: str,
    language: str,
    question: str,
    card: str,
    photo: str | None = None,
) -> int:
    """A question Stepan was unsure of, waiting for the farmer's yes; ``card`` is what
    the operators will see (sanitised), ``photo`` the picture's file id."""
    row = AgronomistQuestionRow(
        user_id=user_id,
        language=language,
        question=question,
        status=AgronomistQuestionStatus.OFFERED,
        card=card,
        photo_file_id=photo,
    )
    session.add(row)
    await session.flush()
    return row.id


async def decide(
    session: AsyncSession,
    *,
    question_id: int,
    user_id: str,
    consent: bool,
    at: datetime,
) -> Question | None:
    """The farmer's own offered question becomes pending (yes) or refused (no), once;
    None for somebody else's question, an unknown id or a second press."""
    row = await session.get(AgronomistQuestionRow, question_id)
    if row is None or row.user_id != user_id or row.status != AgronomistQuestionStatus.OFFERED:
        return None
    status = AgronomistQuestionStatus.PENDING if consent else AgronomistQuestionStatus.REFUSED
    result = await session.execute(
        update(AgronomistQuestionRow)
        .where(
            AgronomistQuestionRow.id == question_id,
            AgronomistQuestionRow.status == AgronomistQuestionStatus.OFFERED,
        )
        .values(status=status, card=row.card if consent else None, asked_at=at)
        .execution_options(synchronize_session=False)
    )
    if int(getattr(result, "rowcount", 0) or 0) != 1:
        return None
    return _question(row, status)


async def answer(
    session: AsyncSession, *, question_id: int, text: str, operator: int, at: datetime
) -> Question | None:
    """Store the agronomist's answer to a pending (or expired) question, once."""
    row = await session.get(AgronomistQuestionRow, question_id)
    if row is None or row.status not in ANSWERABLE:
        return None
    result = await session.execute(
        update(AgronomistQuestionRow)
        .where(
            AgronomistQuestionRow.id == question_id,
            AgronomistQuestionRow.status == row.status,
        )
        .values(
            status=AgronomistQuestionStatus.ANSWERED,
            answer=text,
            answered_by=operator,
            answered_at=at,
        )
        .execution_options(synchronize_session=False)
    )
    if int(getattr(result, "rowcount", 0) or 0) != 1:
        return None
    return _question(row)


async def pending(session: AsyncSession, limit: int) -> list[Question]:
    """The oldest questions still waiting for the agronomist."""
    rows = (
        await session.execute(
            select(AgronomistQuestionRow)
            .where(AgronomistQuestionRow.status == AgronomistQuestionStatus.PENDING)
            .order_by(AgronomistQuestionRow.created_at, AgronomistQuestionRow.id)
            .limit(limit)
        )
    ).scalars()
    return [_question(row) for row in rows]


async def of_user(session: AsyncSession, user_id: str, limit: int) -> list[Question]:
    """One farmer's questions sent to the agronomist (newest first), with their state."""
    rows = (
        await session.execute(
            select(AgronomistQuestionRow)
            .where(
                AgronomistQuestionRow.user_id == user_id,
                AgronomistQuestionRow.status.in_(
                    (
                        AgronomistQuestionStatus.PENDING,
                        AgronomistQuestionStatus.ANSWERED,
                        AgronomistQuestionStatus.EXPIRED,
                    )
                ),
            )
            .order_by(AgronomistQuestionRow.id.desc())
            .limit(limit)
        )
    ).scalars()
    return [_question(row) for row in rows]


async def set_card(session: AsyncSession, question_id: int, card: str) -> None:
    await session.execute(
        update(AgronomistQuestionRow)
        .where(AgronomistQuestionRow.id == question_id)
        .values(card=card)
        .execution_options(synchronize_session=False)
    )


async def expire_pending_before(session: AsyncSession, cutoff: datetime) -> list[Question]:
    """Questions sent to the operators before ``cutoff`` and still unanswered become
    expired; returns them (each once, however many instances run this)."""
    rows = list(
        (
            await session.execute(
                select(AgronomistQuestionRow)
                .where(
                    AgronomistQuestionRow.status == AgronomistQuestionStatus.PENDING,
                    AgronomistQuestionRow.asked_at < cutoff,
                )
                .order_by(AgronomistQuestionRow.id)
            )
        ).scalars()
    )
    expired: list[Question] = []
    for row in rows:
        result = await session.execute(
            update(AgronomistQuestionRow)
            .where(
                AgronomistQuestionRow.id == row.id,
                AgronomistQuestionRow.status == AgronomistQuestionStatus.PENDING,
            )
            .values(status=AgronomistQuestionStatus.EXPIRED)
            .execution_options(synchronize_session=False)
        )
        if int(getattr(result, "rowcount", 0) or 0) == 1:
            expired.append(_question(row, AgronomistQuestionStatus.EXPIRED))
    return expired
