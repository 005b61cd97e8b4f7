"""The memory layer from the settings: the one place the memory-service client gets its
URL, credentials and team (used by the bot's factory and by ``stepan memory``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import httpx

from bot.config import Settings
from db.uow import Database
from pipeline.memory import Credentials, LearningRules, Memory, build_memory, memory_client
from pipeline.memory.profiles.cache import ProfileCache


def build_memory_layer(
    settings: Settings,
    db: Database,
    http: httpx.AsyncClient,
    learning: LearningRules | None = None,
) -> Memory:
    """``learning``: the rules profiles learn by (the bot passes its Rulebook's)."""
    url = settings.agx.memory_service_url
    credentials = Credentials(
        jwt_secret=settings.agx.memory_service_jwt_secret,
        static_token=settings.agx.memory_service_token,
    )
    client = memory_client(
        str(url) if url else None,
        http,
        credentials=credentials,
        team_id=settings.agx.memory_team_id,
    )
    return build_memory(db, client, cache=profile_cache(settings), learning=learning)


def profile_cache(settings: Settings, clock: Callable[[], float] = time.monotonic) -> ProfileCache:
    """The profile cache sized by STEPAN_PROFILE_CACHE_SIZE / _TTL_S."""
    return ProfileCache(
        max_entries=settings.stepan.profile_cache_size,
        ttl=timedelta(seconds=settings.stepan.profile_cache_ttl_s),
        clock=clock,
    )
