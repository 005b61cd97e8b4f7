"""What every service that writes profiles holds."""

from __future__ import annotations

from db.uow import Database
from pipeline.clock import Clock
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.service.outbox import Outbox


class ProfileWriter:
    """The unit of work its transactions open through, the cache it keeps true (an
    entry is invalidated or written through once a transaction ends), the outbox its
    changes go to in the same transaction, and the clock."""

    def __init__(self, db: Database, cache: ProfileCache, outbox: Outbox, clock: Clock) -> None:
        self._db = db
        self._cache = cache
        self._outbox = outbox
        self._clock = clock
