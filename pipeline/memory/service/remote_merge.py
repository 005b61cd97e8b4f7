"""The first flush of a profile made while the memory-service's copy was unknown: read
that copy, merge (``pipeline.memory.service.merging``), store the merge in SQL with its outbox
rows, and only then let the flush write. Details: docs/memory.md.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from db.repositories import outbox
from db.repositories import profiles as repo
from db.uow import Database
from pipeline.memory.profiles.rows import farm_columns, farm_from_row, user_columns, user_from_row
from pipeline.memory.service.client import MemoryServiceClient, Outcome
from pipeline.memory.service.merging import merge_farm, merge_user
from pipeline.profiles import FarmProfile, UserProfile, farm_fact_key, user_fact_key

logger = logging.getLogger(__name__)


async def merge_remote(
    db: Database, client: MemoryServiceClient, user_id: str, now: datetime
) -> Outcome:
    """ok once the user's profile no longer needs a merge; otherwise why not (the flush
    keeps the user's rows back, so nothing blank is ever written over the copy)."""
    keys = (user_fact_key(user_id), farm_fact_key(user_id))
    read = await client.read(user_id, keys)
    if read.status == "dead":
        # The read itself is refused: a contract change. Writing without it could
        # overwrite the copy, so the rows are kept (like a configuration error).
        return Outcome("config_error", f"cannot read the remote copy: {read.error}")
    if read.status != "ok":
        return read
    values: dict[str, Any] = read.value
    remote_user = parse_copy(UserProfile.from_seed_json, values.get(keys[0]), user_id)
    remote_farm = parse_copy(FarmProfile.from_seed_json, values.get(keys[1]), user_id)
    async with db.write() as session:
        row = await repo.lock_user(session, user_id)
        if row is None or row.remote_merge is None:
            return Outcome("ok")  # forgotten or merged meanwhile
        edited = row.remote_merge
        farm_row = await repo.lock_farm(session, user_id)
        changed = remote_user is not None or remote_farm is not None
        if remote_user is not None:
            merged = merge_user(user_from_row(row), remote_user, edited.get("user", []), now)
            for name, value in user_columns(merged).items():
                setattr(row, name, value)
        if remote_farm is not None and farm_row is not None:
            farm = merge_farm(farm_from_row(farm_row), remote_farm, edited.get("farm", []), now)
            for name, value in farm_columns(farm).items():
                setattr(farm_row, name, value)
        if not changed:
            # Nothing remote: the queued rows are right as they are. A Core update
            # keeps updated_at what the queued copy says.
            await repo.set_remote_merge(session, user_id, None)
            return Outcome("ok")
        row.remote_merge = None
        row.updated_at = now
        if changed:
            # The merged profile carries everything the queued upserts did.
            await outbox.supersede_upserts(session, user_id)
            await session.flush()
            outbox.enqueue(
                session, user_id, keys[0], "upsert", user_from_row(row).to_seed_json(), now
            )
            if farm_row is not None:
                farm_json = farm_from_row(farm_row).to_seed_json()
                outbox.enqueue(session, user_id, keys[1], "upsert", farm_json, now)
    if changed:
        logger.info("memory: merged user=%s with the memory-service's copy", user_id)
    return Outcome("ok")


def parse_copy(parser: Any, value: dict[str, Any] | None, user_id: str) -> Any:
    """The remote copy as a profile; None when absent or not valid (SQL is the truth)."""
    if value is None:
        return None
    try:
        return parser(value, user_id)
    except (ValueError, TypeError) as exc:
        logger.warning("memory: ignored a malformed remote copy for user=%s: %s", user_id, exc)
        return None
