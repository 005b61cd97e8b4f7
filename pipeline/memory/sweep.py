"""The daily expertise sweep: apply the expertise rule (``pipeline.memory.expertise``)
to every user it might move up, after a rule change or an operator unlocking a
level. Messages apply the same rule as they are recorded."""

from __future__ import annotations

from db.repositories import profiles as repo
from pipeline.memory.expertise import INTERMEDIATE_MIN_INTERACTIONS
from pipeline.memory.rows import rule_level
from pipeline.memory.writer import ProfileWriter

#: Users upgraded per transaction (keeps SQLite's write lock short).
SWEEP_CHUNK = 100


class ExpertiseSweep(ProfileWriter):
    async def run(self) -> int:
        """Walks the candidates (not expert, not locked, enough interactions) in
        chunks, one transaction each. Returns how many moved; a database error raises
        (the job records it)."""
        upgraded = 0
        after = ""
        while True:
            changed: list[str] = []
            try:
                async with self._db.write() as session:
                    candidates = await repo.upgrade_candidates(
                        session,
                        min_interactions=INTERMEDIATE_MIN_INTERACTIONS,
                        after=after,
                        limit=SWEEP_CHUNK,
                    )
                    now = self._clock()
                    for candidate in candidates:
                        if rule_level(candidate) is None:
                            continue  # the common case: checked without locking anything
                        row = await repo.lock_user(session, candidate.user_id)
                        level = rule_level(row) if row is not None else None
                        if row is None or level is None:
                            continue
                        row.expertise_level = level
                        row.updated_at = now
                        self._outbox.upsert_user(session, row, now)
                        changed.append(row.user_id)
            finally:
                for user_id in changed:
                    self._cache.invalidate(user_id)
            upgraded += len(changed)
            if len(candidates) < SWEEP_CHUNK:
                return upgraded
            after = candidates[-1].user_id
