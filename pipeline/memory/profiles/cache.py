"""The process-local profile cache of seed section 3.2: LRU + time-to-live.

Its size and time-to-live are settings (``STEPAN_PROFILE_CACHE_SIZE``,
``STEPAN_PROFILE_CACHE_TTL_S``; bot/config.py). The seed's 200 entries suit a fallback
cache, not 100,000 farmers: a message whose farmer is not cached pays two SELECTs, a
transaction and pydantic validation (~3 ms on a big SQLite file instead of 0.01 ms).
The default holds the farmers expected to write within one time-to-live; one entry
costs about 8 KB (docs/OPERATIONS.md says how it was measured and how to size it).

SQL is the truth; this only saves reads. Every write ends with either

* ``invalidate(user)`` - the entry goes; or
* ``write_through(user, value, seq)`` - the entry becomes the value just committed
  (the hot path: a message's ``record_interaction`` leaves the profile the next
  message's ``load`` needs, so that load costs no SQL transaction).

Two races are closed with one process-wide counter:

* a slow reader must not store what it read before a write committed: it takes a
  ``token()`` before reading SQL, and ``put`` refuses if the user was written or
  invalidated after that token;
* a writer that committed first but resumes last must not overwrite a newer write:
  writers take a ``sequence()`` while they hold the row lock (so sequence order is
  commit order for one user), and ``write_through`` refuses a sequence older than
  the last write or invalidation of that user.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from pipeline.profiles import FarmProfile, UserProfile

#: Default size: the farmers expected to write within one TTL (about 80 MB at ~8 KB).
MAX_ENTRIES = 10_000
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
        self._counter = itertools.count(1)
        # Per user: when it was last written or invalidated (readers compare their
        # token with it) and the newest writer sequence seen (writers compare theirs).
        self._changed_at: dict[str, int] = {}
        self._written_seq: dict[str, int] = {}
        # Tokens and sequences below this may have missed a mark that was dropped
        # (see _forget_old_marks) or a clear(); they may not store.
        self._floor = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def max_entries(self) -> int:
        return self._max

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
        """A reader takes this before reading SQL and passes it to ``put``."""
        return next(self._counter)

    def sequence(self) -> int:
        """A writer takes this while holding the user's row lock, for ``write_through``."""
        return next(self._counter)

    def put(self, user_id: str, value: CachedProfiles, token: int) -> bool:
        """Store what a reader read, unless the user changed since ``token``."""
        if token < self._floor or self._changed_at.get(user_id, -1) > token:
            return False
        self._store(user_id, value)
        return True

    def write_through(self, user_id: str, value: CachedProfiles, seq: int) -> bool:
        """Store what a writer just committed, unless a newer write or an invalidation
        of the user already came through (then that one stands)."""
        if seq < self._floor or seq <= self._written_seq.get(user_id, -1):
            return False
        self._written_seq[user_id] = seq
        self._changed_at[user_id] = next(self._counter)
        self._store(user_id, value)
        self._bound_marks()
        return True

    def invalidate(self, user_id: str) -> None:
        """Call after every write that does not write through (committed or not)."""
        self._entries.pop(user_id, None)
        mark = next(self._counter)
        self._changed_at[user_id] = mark
        self._written_seq[user_id] = mark
        self._bound_marks()

    def expire(self) -> int:
        """Drop expired entries (the scheduler's job); returns how many."""
        now = self._clock()
        stale = [key for key, entry in self._entries.items() if entry.expires_at <= now]
        for key in stale:
            del self._entries[key]
        return len(stale)

    def clear(self) -> None:
        self._entries.clear()
        self._changed_at.clear()
        self._written_seq.clear()
        self._floor = next(self._counter)

    def _store(self, user_id: str, value: CachedProfiles) -> None:
        self._entries[user_id] = _Entry(value, self._clock() + self._ttl)
        self._entries.move_to_end(user_id)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def _bound_marks(self) -> None:
        # The marks only matter to readers and writers already under way; keep the
        # dicts bounded by forgetting all of them at once and raising the floor, so
        # anyone who started before simply does not store (a cache miss, never stale).
        if len(self._changed_at) > 4 * self._max:
            self._changed_at.clear()
            self._written_seq.clear()
            self._floor = next(self._counter)
