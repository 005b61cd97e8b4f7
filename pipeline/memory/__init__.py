"""Profiles: SQL is the truth (seed 3.2 as DESIGN.md amends it); the memory-service
gets a copy through the outbox. See docs/memory.md."""

from __future__ import annotations

import httpx

from pipeline.memory.breaker import CircuitBreaker
from pipeline.memory.cache import ProfileCache
from pipeline.memory.client import MemoryServiceClient
from pipeline.memory.manager import FlushResult, InteractionRecord, Loaded, MemoryManager

__all__ = [
    "CircuitBreaker",
    "FlushResult",
    "InteractionRecord",
    "Loaded",
    "MemoryManager",
    "MemoryServiceClient",
    "ProfileCache",
    "build_memory_manager",
]


def build_memory_manager(
    memory_service_url: str | None, http: httpx.AsyncClient | None
) -> MemoryManager:
    """The manager the bot uses. No URL: SQL only (no client, no outbox rows).

    The caller owns ``http`` and closes it on shutdown; with a URL it must be given,
    because a client built here would have nobody to close it.
    """
    if not memory_service_url:
        return MemoryManager()
    if http is None:
        raise ValueError("a memory-service URL needs an httpx.AsyncClient to call it with")
    return MemoryManager(client=MemoryServiceClient(memory_service_url, http))
