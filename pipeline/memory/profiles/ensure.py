"""The one place a profile is created: on a first message, or by an edit or a
journal card for a user Stepan has not met. Runs inside the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from db.models import FarmProfileRow, UserProfileRow
from db.repositories import outbox as outbox_repo
from db.repositories import profiles as repo
from db.uow import Session
from pipeline.memory.profiles.rows import farm_columns, user_columns
from pipeline.memory.service.merging import FRESH
from pipeline.memory.service.outbox import Outbox
from pipeline.profiles import FarmProfile, UserProfile, new_farm_id
from pipeline.types import Language


async def ensure_user(
    session: Session,
    outbox: Outbox,
    user_id: str,
    now: datetime,
    *,
    name: str | None = None,
    language: Language | None = None,
) -> UserProfileRow:
    """The user's row, locked; created (with a farm) on first contact.

    ``INSERT ... ON CONFLICT DO NOTHING``: two first messages of one user race to
    create the rows, and neither may fail. Only the transaction that created the
    farm announces it to the memory-service."""
    row = await repo.lock_user(session, user_id)
    if row is not None:
        return row
    user = UserProfile.default(user_id)
    user = user.model_copy(
        update={"name": name, "preferred_language": language or "uk", "updated_at": now}
    )
    columns = user_columns(user)
    if outbox.enabled and await outbox_repo.tombstone(session, user_id) is None:
        # Whether hydration found nothing or never got an answer, the service may hold
        # this farmer's profile: the first flush reads and merges before it writes.
        # After /forget the old copy is being deleted: a new profile is just new.
        columns["remote_merge"] = {kind: [] for kind in FRESH}
    await repo.insert_ignore(session, UserProfileRow, columns)
    farm = FarmProfile(farm_id=new_farm_id(), user_id=user_id, updated_at=now)
    if await repo.insert_ignore(session, FarmProfileRow, farm_columns(farm)):
        outbox.upsert(session, user_id, farm.fact_key, farm.to_seed_json(), now)
    row = await repo.lock_user(session, user_id)
    if row is None:  # pragma: no cover - inserted just above
        raise RuntimeError(f"profile row vanished for {user_id}")
    return row


async def ensure_farm_row(
    session: Session, outbox: Outbox, user_id: str, now: datetime, *, announce: bool
) -> FarmProfileRow:
    """The user's farm row, locked, created with the user if either is missing (a user
    hydrated without a farm has a user row but no farm row). ``announce``: queue a
    farm created here for the memory-service (False when the caller queues the farm
    it is about to change anyway)."""
    await ensure_user(session, outbox, user_id, now)
    farm_row = await repo.lock_farm(session, user_id)
    if farm_row is None:
        base = FarmProfile(farm_id=new_farm_id(), user_id=user_id, updated_at=now)
        inserted = await repo.insert_ignore(session, FarmProfileRow, farm_columns(base))
        if inserted and announce:
            outbox.upsert(session, user_id, base.fact_key, base.to_seed_json(), now)
        farm_row = await repo.lock_farm(session, user_id)
        if farm_row is None:  # pragma: no cover - inserted just above
            raise RuntimeError(f"farm row vanished for {user_id}")
    return farm_row


def note_edit(row: UserProfileRow, kind: str, names: Iterable[str]) -> None:
    """Remember fields changed here while a merge with the remote copy is due: the
    merge keeps their local value (``pipeline.memory.service.merging``)."""
    if row.remote_merge is None:
        return
    marker = {key: list(value) for key, value in row.remote_merge.items()}
    marker[kind] = sorted({*marker.get(kind, []), *names})
    row.remote_merge = marker  # a new object: JSON columns track assignment only


async def note_farm_edit(session: Session, row: UserProfileRow, names: Iterable[str]) -> None:
    """``note_edit`` for farm fields, without touching the user row's ``updated_at``
    (a farm edit queues no user copy, so the user's time must stay what was sent)."""
    if row.remote_merge is None:
        return
    marker = {key: list(value) for key, value in row.remote_merge.items()}
    marker["farm"] = sorted({*marker.get("farm", []), *names})
    await repo.set_remote_merge(session, row.user_id, marker)
