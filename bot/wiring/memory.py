"""The memory layer from the settings: the one place the memory-service client gets its
URL, credentials and team (used by the bot's factory and by ``stepan memory``), and
the start-up check that a static token is not shared by several farmers."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import httpx

from bot.config import ConfigError, Settings
from db.engine import create_engine
from db.repositories import profiles as profiles_repo
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


class StaticTokenShared(ConfigError):
    """A static memory-service token, and more than one farmer who would sync with it."""


async def refuse_shared_static_token(settings: Settings) -> None:
    """Static-token mode is single-subject: the memory-service takes the acting user
    from the token, so one static token writes for one farmer and refuses (403) every
    other's. Raise StaticTokenShared, naming the settings, when the token would be
    used (a URL, no JWT secret) and the database holds more than one farmer."""
    agx = settings.agx
    if agx.memory_service_url is None or agx.memory_service_token is None:
        return
    if agx.memory_service_jwt_secret is not None:
        return  # the JWT wins: a token per farmer
    engine = create_engine(settings.stepan.database_url)
    try:
        async with Database.of(engine).read() as session:
            farmers = await profiles_repo.some_user_ids(session, limit=2)
    finally:
        await engine.dispose()
    if len(farmers) > 1:
        raise StaticTokenShared(
            "AGX_MEMORY_SERVICE_TOKEN is a static token: the memory-service takes one "
            "acting user from it, so it serves a single farmer, and this database has "
            "more than one. Set AGX_MEMORY_SERVICE_JWT_SECRET (a token per farmer, "
            "docs/memory-service.md) or unset AGX_MEMORY_SERVICE_URL"
        )
