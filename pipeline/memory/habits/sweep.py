"""The daily expertise sweep: apply the expertise rule (``pipeline.memory.habits.expertise``)
to every user it might move up, after a rule change or an operator unlocking a
level. Messages apply the same rule as they are recorded.

It never locks conversations out (issue 17): it reads the candidates in chunks, one
short read each, and upgrades the few a chunk holds in a write of their own (re-read
and locked together, the rule checked again under the lock). On SQLite transactions
take turns first come, first served (db/turns.py), so a message waiting for the
database gets in between any two of them, and no message waits for more than one.
"""

from __future__ import annotations

from collections.abc import Sequence

from db.repositories import profiles as repo
from pipeline.memory.habits.expertise import INTERMEDIATE_MIN_INTERACTIONS
from pipeline.memory.profiles.rows import rule_level
from pipeline.memory.profiles.writer import ProfileWriter

#: Candidates read per transaction (keeps SQLite's write lock short).
SWEEP_CHUNK = 100


class ExpertiseSweep(ProfileWriter):
    async def run(self) -> int:
        """Walks the candidates (not expert, not locked, enough interactions) in
        chunks. Returns how many moved; a database error raises (the job records it)."""
        upgraded = 0
        after = ""
        while True:
            async with self._db.read() as session:
                candidates = await repo.upgrade_candidates(
                    session,
                    min_interactions=INTERMEDIATE_MIN_INTERACTIONS,
                    after=after,
                    limit=SWEEP_CHUNK,
                )
                # The common case: checked without locking or writing anything.
                due = [c.user_id for c in candidates if rule_level(c) is not None]
            if due:
                upgraded += await self._upgrade(due)
            if len(candidates) < SWEEP_CHUNK:
                return upgraded
            after = candidates[-1].user_id

    async def _upgrade(self, user_ids: Sequence[str]) -> int:
        changed: list[str] = []
        try:
            async with self._db.write() as session:
                now = self._clock()
                for row in await repo.lock_users(session, user_ids):
                    level = rule_level(row)  # again: a message may have moved it since
                    if level is None:
                        continue
                    row.expertise_level = level
                    row.updated_at = now
                    self._outbox.upsert_user(session, row, now)
                    changed.append(row.user_id)
        finally:
            for user_id in changed:
                self._cache.invalidate(user_id)
        return len(changed)
