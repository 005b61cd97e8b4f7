"""Merging a profile Stepan made while the memory-service's copy was unknown with that
copy (issue 9: a missed hydration must never overwrite the backup with a blank
profile). Pure functions: no session, no network.

The local profile started blank, so everything it counted happened after the remote
copy was written: counters add up. Everything else is the remote copy's (identity,
names, level, thresholds, lists) unless the farmer or an operator changed that field
here since (``edited``, kept by ``pipeline.memory.profiles.ensure.note_edit``). SQL keeps its
own ``farm_id``: journal rows, fields and sensors already point at it.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from pipeline.memory.habits.expertise import upgraded_level
from pipeline.memory.profiles.rows import FARM_NESTED
from pipeline.profiles import (
    FARM_COPY_OPTIONAL,
    RECENT_TOPICS_KEPT,
    FarmProfile,
    UserProfile,
    copy_has,
)

#: What the marker on a fresh profile starts as: no field edited locally yet.
FRESH: dict[str, list[str]] = {"user": [], "farm": []}


def merge_user(
    local: UserProfile, remote: UserProfile, edited: Collection[str], now: datetime
) -> UserProfile:
    data = remote.model_dump()
    mine = local.model_dump()
    for name in edited:
        if name in mine:
            data[name] = mine[name]
    if "expertise_level" in edited:
        data["expertise_locked"] = local.expertise_locked or remote.expertise_locked
    data["user_id"] = local.user_id
    data["operator"] = local.operator  # who is an operator is this deployment's setting
    data["weather_warnings"] = local.weather_warnings  # never in the copy: SQL's own
    data["interaction_count"] = remote.interaction_count + local.interaction_count
    data["known_intents"] = _union(remote.known_intents, local.known_intents)
    data["context_notes"] = _union(data["context_notes"], local.context_notes)
    topics = sorted([*remote.recent_topics, *local.recent_topics], key=lambda topic: topic.ts)
    data["recent_topics"] = [topic.model_dump() for topic in topics[-RECENT_TOPICS_KEPT:]]
    seen = [value for value in (remote.last_seen, local.last_seen) if value is not None]
    data["last_seen"] = max(seen) if seen else None
    data["farm_profile_ref"] = local.farm_profile_ref or remote.farm_profile_ref
    data["updated_at"] = now
    merged = UserProfile.model_validate(data)
    level = upgraded_level(
        merged.expertise_level,
        interaction_count=merged.interaction_count,
        known_intents=merged.known_intents,
        locked=merged.expertise_locked,
    )
    return merged if level is None else merged.model_copy(update={"expertise_level": level})


def merge_farm(
    local: FarmProfile, remote: FarmProfile, edited: Collection[str], now: datetime
) -> FarmProfile:
    data: dict[str, Any] = remote.model_dump()
    mine = local.model_dump()
    for name in edited:
        group = FARM_NESTED.get(name)
        if group is not None:
            data[group] = {**data[group], name: mine[group][name]}
        elif name in mine:
            data[name] = mine[name]
    for name in FARM_COPY_OPTIONAL:
        if not copy_has(remote, name):  # an older copy, written before it was synced
            data[name] = mine[name]
    data["farm_id"] = local.farm_id
    data["user_id"] = local.user_id
    data["typical_intents"] = _union(remote.typical_intents, local.typical_intents)
    data["dict_pending_count"] = max(remote.dict_pending_count, local.dict_pending_count)
    data["updated_at"] = now
    return FarmProfile.model_validate(data)


def _union(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
