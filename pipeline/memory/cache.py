"""The process-local profile cache of seed section 3.2: up to 200 entries, 30 minutes.

SQL is the truth; this only saves reads. Writers invalidate a user's entry after
every commit, and a reader may only store what it read if no invalidation of that
user happened since it started reading (``token`` / ``put``). Without that check a
slow reader could store a profile it read just before somebody's write committed,
and the next reader would see a profile older than that write.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from pipeline.profiles import FarmProfile, UserProfile

MAX_ENTRIES = 200
TTL = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class CachedProfiles:
    profile: UserProfile
    farm: FarmProfile


@dataclass(slots=True)
class _Entry:
    value: CachedProfiles
    expires_at: float


class ProfileCache:
    """LRU + TTL cache of a user's profiles; ``clock`` is monotonic seconds."""

    def __init__(
        self,
        *,
        max_entries: int = MAX_ENTRIES,
        ttl: timedelta = TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._max = max_entries
        self._ttl = ttl.total_seconds()
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        # Bumped on every invalidation; a reader's token is the value it saw first.
        self._generation = 0
        self._invalidated_at: dict[str, int] = {}
        # Readers with a token below this may have missed an invalidation whose mark
        # was dropped (see _forget_old_marks) or a clear(); they may not store.
        self._floor = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, user_id: str) -> CachedProfiles | None:
        entry = self._entries.get(user_id)
        if entry is None:
            return None
        if entry.expires_at <= self._clock():
            del self._entries[user_id]
            return None
        self._entries.move_to_end(user_id)
        return entry.value

    def token(self) -> int:
        """Take before reading SQL; pass to ``put`` with what was read."""
        return self._generation

    def put(self, user_id: str, value: CachedProfiles, token: int) -> bool:
        """Store what a reader read, unless the user was invalidated since ``token``."""
        if token < self._floor or self._invalidated_at.get(user_id, -1) > token:
            return False
        self._entries[user_id] = _Entry(value, self._clock() + self._ttl)
        self._entries.move_to_end(user_id)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
        return True

    def invalidate(self, user_id: str) -> None:
        """Call after every write to this user has committed (or failed)."""
        self._entries.pop(user_id, None)
        self._generation += 1
        self._invalidated_at[user_id] = self._generation
        # The marks only matter to readers that started before them; once they are
        # older than every cached entry could be, drop them so the dict stays bounded.
        if len(self._invalidated_at) > 4 * self._max:
            self._forget_old_marks()

    def expire(self) -> int:
        """Drop expired entries (the scheduler's job); returns how many."""
        now = self._clock()
        stale = [key for key, entry in self._entries.items() if entry.expires_at <= now]
        for key in stale:
            del self._entries[key]
        return len(stale)

    def clear(self) -> None:
        self._entries.clear()
        self._generation += 1
        self._invalidated_at.clear()
        self._floor = self._generation

    def _forget_old_marks(self) -> None:
        # Keep the newest half of the marks; a reader older than the newest mark
        # dropped is refused by the floor instead (it might have missed it).
        marks = sorted(self._invalidated_at.items(), key=lambda item: item[1])
        half = len(marks) // 2
        self._floor = max(self._floor, marks[half - 1][1])
        self._invalidated_at = dict(marks[half:])
