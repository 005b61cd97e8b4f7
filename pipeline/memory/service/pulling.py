"""``stepan memory pull USER_ID``: an operator hydrates one farmer from the
memory-service's copy on purpose (a row repaired by hand, a database restored from an
old backup), and sees which fields changed.

The copy replaces the SQL profile (SQL keeps its own ``farm_id``: its rows point at
it). Refused while the farmer has unsent outbox rows - those are newer than the copy;
``stepan memory sync`` first - and after /forget (the tombstone), whose old copy must
never come back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from db.models import FarmProfileRow, UserProfileRow
from db.repositories import outbox
from db.repositories import profiles as repo
from db.uow import Database
from pipeline.memory.profiles.cache import ProfileCache
from pipeline.memory.profiles.rows import farm_columns, farm_from_row, user_columns, user_from_row
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.memory.service.remote_merge import parse_copy
from pipeline.profiles import (
    FARM_COPY_OPTIONAL,
    FarmProfile,
    UserProfile,
    copy_has,
    farm_fact_key,
    user_fact_key,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # "user" | "farm"
    field: str
    old: Any
    new: Any


@dataclass(frozen=True, slots=True)
class PullResult:
    ok: bool
    message: str
    changes: tuple[Change, ...] = ()


async def pull(
    db: Database,
    client: MemoryServiceClient,
    cache: ProfileCache,
    user_id: str,
    now: datetime,
) -> PullResult:
    async with db.read() as session:
        if await outbox.tombstone(session, user_id) is not None:
            return PullResult(False, f"{user_id} said /forget: the old copy stays gone")
        waiting = await outbox.live_count_of(session, user_id)
    if waiting:
        return PullResult(
            False, f"{user_id} has {waiting} unsent change(s), newer than the copy: sync first"
        )
    keys = (user_fact_key(user_id), farm_fact_key(user_id))
    read = await client.read(user_id, keys)
    if read.status != "ok":
        return PullResult(False, f"could not read the copy: {read.status} ({read.error})")
    remote_user = parse_copy(UserProfile.from_seed_json, read.value.get(keys[0]), user_id)
    remote_farm = parse_copy(FarmProfile.from_seed_json, read.value.get(keys[1]), user_id)
    if remote_user is None:
        return PullResult(False, f"the memory-service has no valid profile of {user_id}")
    changes: list[Change] = []
    async with db.write() as session:
        row = await repo.lock_user(session, user_id)
        if row is None:
            await repo.insert_ignore(session, UserProfileRow, user_columns(remote_user))
            changes.append(Change("user", "*", None, "created"))
        else:
            changes += _diff("user", user_from_row(row).to_seed_json(), remote_user.to_seed_json())
            for name, value in user_columns(remote_user).items():
                setattr(row, name, value)
            row.remote_merge = None
        if remote_farm is not None:
            farm_row = await repo.lock_farm(session, user_id)
            if farm_row is None:
                await repo.insert_ignore(session, FarmProfileRow, farm_columns(remote_farm))
                changes.append(Change("farm", "*", None, "created"))
            else:
                local = farm_from_row(farm_row)
                remote = remote_farm.model_copy(update=_kept(local, remote_farm))
                changes += _diff("farm", local.to_seed_json(), remote.to_seed_json())
                for name, value in farm_columns(remote).items():
                    setattr(farm_row, name, value)
    cache.invalidate(user_id)
    logger.info(
        "memory: pulled user=%s from the memory-service (%d changes)", user_id, len(changes)
    )
    return PullResult(True, f"pulled {user_id}", tuple(changes))


def _kept(local: FarmProfile, remote: FarmProfile) -> dict[str, Any]:
    """What SQL keeps over the copy: its ``farm_id``, and the timezone and region an
    older copy lacks."""
    kept: dict[str, Any] = {"farm_id": local.farm_id}
    for name in FARM_COPY_OPTIONAL:
        if not copy_has(remote, name):
            kept[name] = getattr(local, name)
    return kept


def _diff(kind: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    return [
        Change(kind, name, old.get(name), new.get(name))
        for name in sorted(set(old) | set(new))
        if old.get(name) != new.get(name) and name != "updated_at"
    ]
