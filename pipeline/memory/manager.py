"""Load and update profiles; every failure degrades to a valid default (seed 10)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import FarmProfileRow, InteractionRow, UserProfileRow
from db.repositories import profiles as repo
from pipeline.profiles import (
    RECENT_TOPICS_KEPT,
    FarmProfile,
    Style,
    UserProfile,
    farm_fact_key,
    new_farm_id,
)
from pipeline.types import DepthDecision, Language

logger = logging.getLogger(__name__)

_USER_FIELDS = tuple(name for name in UserProfile.model_fields)
_FARM_FIELDS = tuple(name for name in FarmProfile.model_fields)


@dataclass(frozen=True, slots=True)
class Loaded:
    profile: UserProfile
    farm: FarmProfile
    known: bool  # False for a user SQL has never seen (first contact)
    degraded: bool = False  # True when the store failed and defaults stand in


@dataclass(frozen=True, slots=True)
class InteractionRecord:
    user_id: str
    chat_id: int
    trace_id: str
    text: str
    decision: DepthDecision
    crew: tuple[str, ...]
    latency_ms: float
    at: datetime
    name: str | None
    language: Language


def user_from_row(row: UserProfileRow) -> UserProfile:
    return UserProfile.model_validate({name: getattr(row, name) for name in _USER_FIELDS})


def farm_from_row(row: FarmProfileRow) -> FarmProfile:
    return FarmProfile.model_validate({name: getattr(row, name) for name in _FARM_FIELDS})


class MemoryManager:
    async def load(self, session: AsyncSession, user_id: str) -> Loaded:
        try:
            user_row = await repo.get_user(session, user_id)
            farm_row = await repo.get_farm(session, user_id) if user_row else None
            # End the read now: on SQLite it holds the write lock (BEGIN IMMEDIATE).
            await session.commit()
        except Exception:
            logger.warning("memory: fallback to default profile user=%s", user_id, exc_info=True)
            await _rollback_quietly(session)
            return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), True, True)
        if user_row is None:
            return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), False)
        profile = user_from_row(user_row)
        farm = farm_from_row(farm_row) if farm_row else FarmProfile.default(user_id)
        return Loaded(profile, farm, True)

    async def record_interaction(self, session: AsyncSession, record: InteractionRecord) -> None:
        """One transaction: profile counters and the interaction row, or neither."""
        try:
            await self._record(session, record)
            await session.commit()
        except Exception:
            logger.exception(
                "memory: update failed user=%s trace=%s", record.user_id, record.trace_id
            )
            await _rollback_quietly(session)

    async def _record(self, session: AsyncSession, record: InteractionRecord) -> None:
        user_id = record.user_id
        await repo.insert_ignore(
            session,
            UserProfileRow,
            {
                "user_id": user_id,
                "name": record.name,
                "preferred_language": record.language,
                "farm_profile_ref": farm_fact_key(user_id),
                "known_intents": [],
                "context_notes": [],
                "recent_topics": [],
                "interaction_count": 0,
            },
        )
        await repo.insert_ignore(
            session,
            FarmProfileRow,
            {
                "farm_id": new_farm_id(),
                "user_id": user_id,
                "field_ids": [],
                "crop_ids": [],
                "active_integrations": [],
                "seasonal_context": {},
                "iot_sensors": {},
                "typical_intents": [],
                "alert_thresholds": {},
            },
        )
        row = await repo.lock_user(session, user_id)
        if row is None:  # pragma: no cover - inserted just above
            raise RuntimeError(f"profile row vanished for {user_id}")
        intent = record.decision.intent
        row.interaction_count = UserProfileRow.interaction_count + 1
        row.last_seen = record.at
        if row.name is None and record.name:
            row.name = record.name
        topics = [*row.recent_topics, {"intent": intent, "ts": record.at.isoformat()}]
        row.recent_topics = topics[-RECENT_TOPICS_KEPT:]
        if intent and intent not in row.known_intents:
            row.known_intents = [*row.known_intents, intent]
        session.add(
            InteractionRow(
                trace_id=record.trace_id,
                user_id=user_id,
                chat_id=record.chat_id,
                mode=record.decision.mode,
                intent=intent,
                crew=list(record.crew),
                confidence=record.decision.confidence,
                reason=record.decision.reason[:128],
                latency_ms=record.latency_ms,
                text=record.text,
                created_at=record.at,
            )
        )

    async def set_style(self, session: AsyncSession, user_id: str, style: Style) -> bool:
        """The user's own choice of reply style; False if it could not be saved."""
        try:
            row = await repo.lock_user(session, user_id)
            if row is None:
                await session.rollback()
                return False
            row.preferred_style = style
            await session.commit()
            return True
        except Exception:
            logger.exception("memory: set_style failed user=%s", user_id)
            await _rollback_quietly(session)
            return False

    async def set_active(self, session: AsyncSession, user_id: str, active: bool) -> None:
        try:
            await repo.set_active(session, user_id, active)
            await session.commit()
        except Exception:
            logger.exception("memory: set_active failed user=%s", user_id)
            await _rollback_quietly(session)


async def _rollback_quietly(session: AsyncSession) -> None:
    try:
        await session.rollback()
    except Exception:
        logger.debug("memory: rollback failed", exc_info=True)
