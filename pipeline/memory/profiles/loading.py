"""Loading a user's profiles: the cache, then SQL, then (for a user SQL does not
know) the memory-service's copy, then a valid default. Never raises (seed 10).

A conversation only talks to the memory-service to hydrate a user SQL has never
seen, with one bounded attempt, and not at all while the breaker is open. Details:
docs/memory.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from db.models import FarmProfileRow, UserProfileRow
from db.repositories import outbox
from db.repositories import profiles as repo
from db.uow import Database
from pipeline.memory.profiles.cache import CachedProfiles, ProfileCache
from pipeline.memory.profiles.errors import StoreUnavailable
from pipeline.memory.profiles.rows import farm_columns, farm_from_row, user_columns, user_from_row
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Loaded:
    profile: UserProfile
    farm: FarmProfile
    known: bool  # False for a user neither SQL nor the memory-service has seen
    degraded: bool = False  # True when the store failed and defaults stand in
    hydrated: bool = False  # True when SQL did not know the user and the memory-service did


class ProfileLoader:
    def __init__(
        self, db: Database, cache: ProfileCache, client: MemoryServiceClient | None = None
    ) -> None:
        self._db = db
        self._cache = cache
        self._client = client

    async def load(self, user_id: str) -> Loaded:
        """Cache, then SQL, then the memory-service, then a default. Never raises."""
        try:
            return await self._load(user_id)
        except Exception:
            logger.exception("memory: load failed user=%s", user_id)
            return _degraded(user_id)

    async def load_stored(self, user_id: str) -> Loaded:
        """The profile, or StoreUnavailable when defaults stood in for a failed store
        (a card people read, an operator's or a user's /me, never shows defaults as
        data)."""
        loaded = await self.load(user_id)
        if loaded.degraded:
            raise StoreUnavailable(user_id)
        return loaded

    async def _load(self, user_id: str) -> Loaded:
        cached = self._cache.get(user_id)
        if cached is not None:
            return Loaded(cached.profile, cached.farm, True)
        token = self._cache.token()
        try:
            # A read of its own, over before the memory-service call below: on SQLite
            # every transaction holds the write lock (BEGIN IMMEDIATE).
            async with self._db.read() as session:
                user_row = await repo.get_user(session, user_id)
                farm_row = await repo.get_farm(session, user_id) if user_row else None
                profile = user_from_row(user_row) if user_row else None
                farm = farm_from_row(farm_row) if farm_row else FarmProfile.default(user_id)
                grave = None if user_row else await outbox.tombstone(session, user_id)
                forgotten_at = grave.forgotten_at if grave is not None else None
                confirmed = grave is not None and grave.confirmed_at is not None
        except Exception:
            logger.warning("memory: fallback to default profile user=%s", user_id, exc_info=True)
            return _degraded(user_id)
        if profile is not None:
            if farm_row is not None:
                self._cache.put(user_id, CachedProfiles(profile, farm), token)
            return Loaded(profile, farm, True)
        if forgotten_at is not None and not confirmed:
            # /forget is final: the old copy may still be in the service until the
            # flush deletes it, and must not come back. A new farmer on both sides.
            return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), False)
        hydrated = await self._hydrate(user_id, forgotten_at)
        if hydrated is not None:
            return hydrated
        return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), False)

    async def _hydrate(self, user_id: str, forgotten_at: datetime | None) -> Loaded | None:
        """The memory-service's copy of a user SQL does not know (a restored or moved
        database), stored into SQL. Garbage is ignored; SQL rows are never overwritten
        (insert-if-absent only); after a /forget only a copy written since counts."""
        if self._client is None:
            return None
        facts = await self._client.get_facts(
            user_id, (user_fact_key(user_id), farm_fact_key(user_id))
        )
        if not facts:
            return None
        profile = _parse(UserProfile.from_seed_json, facts.get(user_fact_key(user_id)), user_id)
        if profile is None or _before(profile.updated_at, forgotten_at):
            return None
        farm = _parse(FarmProfile.from_seed_json, facts.get(farm_fact_key(user_id)), user_id)
        farm = farm or FarmProfile.default(user_id)
        try:
            async with self._db.write() as session:
                await repo.insert_ignore(session, UserProfileRow, user_columns(profile))
                await repo.insert_ignore(session, FarmProfileRow, farm_columns(farm))
            logger.info("memory: hydrated user=%s from the memory-service", user_id)
        except Exception:
            # The profile is still good for this message; the next one retries.
            logger.warning("memory: could not store hydrated user=%s", user_id, exc_info=True)
        finally:
            self._cache.invalidate(user_id)
        return Loaded(profile, farm, True, hydrated=True)


def _before(updated_at: datetime | None, forgotten_at: datetime | None) -> bool:
    if forgotten_at is None:
        return False
    if forgotten_at.tzinfo is None:  # SQLite hands timezone-aware columns back naive
        forgotten_at = forgotten_at.replace(tzinfo=UTC)
    return updated_at is None or updated_at <= forgotten_at


def _degraded(user_id: str) -> Loaded:
    return Loaded(UserProfile.default(user_id), FarmProfile.default(user_id), True, True)


def _parse(parser: Callable[[Any, str], T], value: dict[str, Any] | None, user_id: str) -> T | None:
    if value is None:
        return None
    try:
        return parser(value, user_id)
    except (ValueError, TypeError) as exc:
        logger.warning("memory: ignored a malformed fact for user=%s: %s", user_id, exc)
        return None
