"""The memory layer from the settings: the one place the memory-service client gets its
URL, credentials and team (used by the bot's factory and by ``stepan memory``)."""

from __future__ import annotations

import httpx

from bot.config import Settings
from db.uow import Database
from pipeline.memory import Credentials, Memory, build_memory, memory_client


def build_memory_layer(settings: Settings, db: Database, http: httpx.AsyncClient) -> Memory:
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
    return build_memory(db, client)
