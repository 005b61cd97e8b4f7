"""What a profile write adds for the memory-service: an outbox row in the same
transaction (SQL is the truth; ``MemorySync`` sends the rows later), or nothing at
all when no memory-service is configured."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from db.models import UserProfileRow
from db.repositories import outbox as repo
from db.uow import Session
from pipeline.memory.profiles.rows import user_from_row, user_from_values, valid
from pipeline.profiles import UserProfile, farm_fact_key, user_fact_key

logger = logging.getLogger(__name__)


class Outbox:
    """Queues profile copies inside the caller's transaction; never commits."""

    def __init__(self, *, enabled: bool) -> None:
        self._enabled = enabled

    @property
    def enabled(self) -> bool:
        return self._enabled

    def upsert(
        self,
        session: Session,
        user_id: str,
        fact_key: str,
        payload: dict[str, Any],
        now: datetime,
    ) -> None:
        # Without a memory-service there is nobody to send to: no rows at all.
        if self._enabled:
            repo.enqueue(session, user_id, fact_key, "upsert", payload, now)

    def upsert_user(
        self, session: Session, row: UserProfileRow, now: datetime
    ) -> UserProfile | None:
        """Queue the row's seed JSON; returns the validated profile (None if invalid)."""
        return self._upsert_profile(session, row.user_id, valid(user_from_row, row), now)

    def upsert_user_values(
        self, session: Session, values: Mapping[str, Any], now: datetime
    ) -> UserProfile | None:
        """``upsert_user`` for a row's column values (``repo.lock_user_values``)."""
        return self._upsert_profile(
            session, values["user_id"], valid(user_from_values, values), now
        )

    def _upsert_profile(
        self, session: Session, user_id: str, profile: UserProfile | None, now: datetime
    ) -> UserProfile | None:
        if profile is None:
            # A hand-edited row SQL accepts but the model does not: keep the SQL
            # change (the truth) and skip the copy rather than lose the interaction.
            logger.warning("memory: profile of user=%s is invalid, not synced", user_id)
            return None
        if self._enabled:  # the seed JSON is only built for a memory-service to get
            self.upsert(session, user_id, user_fact_key(user_id), profile.to_seed_json(), now)
        return profile

    async def forget(self, session: Session, user_id: str, now: datetime) -> None:
        """Drop the user's queued rows, queue deletes of both facts and of their dialog
        summaries, and write the tombstone that stops the old copy from ever being
        hydrated back (it may outlive this transaction until the flush deletes it)."""
        await repo.delete_for_user(session, user_id)
        if self._enabled:
            for key in (user_fact_key(user_id), farm_fact_key(user_id)):
                repo.enqueue(session, user_id, key, "delete", None, now)
            repo.enqueue(session, user_id, "summaries", "summary_purge", None, now)
            await repo.bury(session, user_id, now)
