"""Editing profiles: a user's style, an operator's edits, onboarding answers, the
farm a journal card needs, the active flag, forget.

Every change is one transaction of its own that writes the profile and, with a
memory-service, an outbox row carrying the whole seed JSON; the user's cache entry
is invalidated once it ends (committed or not). Details: docs/memory.md.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from db.models import UserProfileRow
from db.repositories import profiles as repo
from db.repositories import telegram_outbox
from db.uow import Session
from pipeline.memory.profiles.ensure import ensure_farm_row, ensure_user, note_edit, note_farm_edit
from pipeline.memory.profiles.errors import StoreUnavailable
from pipeline.memory.profiles.rows import (
    FARM_EDITABLE,
    FARM_NESTED,
    USER_EDITABLE,
    farm_columns,
    farm_from_row,
    invalid,
    rule_level,
    user_from_row,
    validate_farm,
    validate_user,
)
from pipeline.memory.profiles.writer import ProfileWriter
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, Expertise, FarmProfile, Style, UserProfile

logger = logging.getLogger(__name__)

T = TypeVar("T")


class _Refused(Exception):
    """A change that does not apply (an unknown user, an operator's lock): the
    transaction rolls back and nothing is written."""


class ProfileEditor(ProfileWriter):
    async def set_style(self, user_id: str, style: Style) -> bool:
        """The reply style; False if the value is not a style or the user is unknown;
        StoreUnavailable if it could not be saved."""
        if style not in STYLES:
            return False

        def change(row: UserProfileRow) -> None:
            row.preferred_style = style
            note_edit(row, "user", ["preferred_style"])

        return await self._change_user(user_id, change)

    async def set_expertise(self, user_id: str, level: Expertise, *, by_operator: bool) -> bool:
        """An operator's choice locks the level (auto-upgrade never touches it again);
        anyone else's choice is refused while an operator's lock stands."""
        if level not in EXPERTISE_LEVELS:
            return False

        def change(row: UserProfileRow) -> None:
            if row.expertise_locked and not by_operator:
                raise _Refused
            row.expertise_level = level
            row.expertise_locked = row.expertise_locked or by_operator
            note_edit(row, "user", ["expertise_level"])

        return await self._change_user(user_id, change)

    async def set_weather_warnings(self, user_id: str, on: bool) -> bool:
        """The weather warnings Stepan sends first, on or off (the farmer's choice in
        /me); False if the user is unknown."""

        def change(row: UserProfileRow) -> None:
            row.weather_warnings = on

        return await self._change_user(user_id, change)

    async def unlock_expertise(self, user_id: str) -> bool:
        """An operator gives the level back to the rule: the lock goes and the rule
        applies at once (the level still never goes down)."""

        def change(row: UserProfileRow) -> None:
            row.expertise_locked = False
            level = rule_level(row)
            if level is not None:
                row.expertise_level = level
            note_edit(row, "user", ["expertise_level"])

        return await self._change_user(user_id, change)

    async def update_user(self, user_id: str, **changes: Any) -> UserProfile | None:
        """Validated changes to the user profile (``USER_EDITABLE``); creates the user
        if missing. ValueError for unknown keys or invalid values; None if the
        database failed."""
        unknown = set(changes) - USER_EDITABLE
        if "expertise_level" in unknown:
            raise ValueError("expertise_level: use set_expertise")
        if unknown:
            raise ValueError(
                f"unknown profile field(s) {', '.join(sorted(unknown))}; "
                f"expected {', '.join(sorted(USER_EDITABLE))}"
            )
        validate_user(UserProfile.default(user_id), changes)  # fail before any SQL

        async def change(session: Session, now: datetime) -> UserProfile:
            row = await ensure_user(session, self._outbox, user_id, now)
            profile = validate_user(user_from_row(row), changes)
            for name in changes:
                setattr(row, name, getattr(profile, name))
            note_edit(row, "user", changes)
            row.updated_at = now
            self._outbox.upsert_user(session, row, now)
            return user_from_row(row)

        return await self._write(user_id, change, "update_user")

    async def update_farm(self, user_id: str, **changes: Any) -> FarmProfile | None:
        """Validated changes to the farm (``FARM_EDITABLE``, nested fields by their
        own names: current_phase, has_iot_integration, temperature_min ...); creates
        the rows if missing. ValueError naming the key for anything invalid; None if
        the database failed."""
        if not changes:
            raise ValueError("update_farm needs at least one change (see ensure_farm)")
        unknown = set(changes) - FARM_EDITABLE
        if unknown:
            raise ValueError(
                f"unknown farm field(s) {', '.join(sorted(unknown))}; "
                f"expected {', '.join(sorted(FARM_EDITABLE))}"
            )
        validate_farm(FarmProfile.default(user_id), changes)  # fail before any SQL

        async def change(session: Session, now: datetime) -> FarmProfile:
            farm_row = await ensure_farm_row(session, self._outbox, user_id, now, announce=False)
            user_row = await repo.lock_user(session, user_id)
            if user_row is not None:
                await note_farm_edit(session, user_row, changes)
            farm = validate_farm(farm_from_row(farm_row), changes)
            farm = farm.model_copy(update={"updated_at": now})
            if "current_phase" in changes:
                # Set by hand: the journal no longer infers it; None ("auto") unlocks.
                farm = farm.model_copy(
                    update={"phase_locked": farm.seasonal_context.current_phase is not None}
                )
                farm_row.phase_locked = farm.phase_locked
            columns = farm_columns(farm)
            for name in {FARM_NESTED.get(name, name) for name in changes}:
                setattr(farm_row, name, columns[name])
            farm_row.updated_at = now
            self._outbox.upsert(session, user_id, farm.fact_key, farm.to_seed_json(), now)
            return farm

        return await self._write(user_id, change, "update_farm")

    async def ensure_farm(self, user_id: str) -> str | None:
        """The user's farm id, creating the user and the farm if missing (a journal card
        for someone's very first message needs a farm to belong to). None if the
        database failed."""

        async def change(session: Session, now: datetime) -> str:
            row = await ensure_farm_row(session, self._outbox, user_id, now, announce=True)
            return row.farm_id

        return await self._write(user_id, change, "ensure_farm")

    async def set_active(self, user_id: str, active: bool) -> None:
        """Not part of the seed JSON, so no outbox row. Never raises."""
        try:
            async with self._db.write() as session:
                await repo.set_active(session, user_id, active)
        except Exception:
            logger.exception("memory: set_active failed user=%s", user_id)

    async def forget(self, user_id: str, chat_id: int | None = None) -> None:
        """Delete everything Stepan keeps about the user, in one transaction, and queue
        deletes for the memory-service; with ``chat_id`` (their private chat) also the
        replies to it still kept in ``telegram_outbox``. Raises if the database failed
        (after rolling back), so nobody is told their data is gone when it is not."""
        try:
            async with self._db.write() as session:
                await repo.delete_user_data(session, user_id)
                if chat_id is not None:
                    await telegram_outbox.forget_chat(session, chat_id)
                await self._outbox.forget(session, user_id, self._clock())
            logger.info("memory: forgot user=%s", user_id)
        except Exception:
            logger.exception("memory: forget failed user=%s", user_id)
            raise
        finally:
            self._cache.invalidate(user_id)

    async def add_context_notes(
        self, session: Session, user_id: str, notes: list[str], keep: int
    ) -> bool:
        """Append ``notes`` to the user's context notes (the newest ``keep`` stay), in the
        caller's transaction, with the copy queued; the caller invalidates the cache
        after its commit (``invalidate``). False for an unknown user."""
        row = await repo.lock_user(session, user_id)
        if row is None:
            return False
        kept = [note for note in row.context_notes or [] if note not in notes]
        row.context_notes = [*kept, *notes][-keep:] if keep > 0 else []
        note_edit(row, "user", ["context_notes"])
        now = self._clock()
        row.updated_at = now
        self._outbox.upsert_user(session, row, now)
        return True

    def invalidate(self, user_id: str) -> None:
        self._cache.invalidate(user_id)

    async def _change_user(self, user_id: str, change: Callable[[UserProfileRow], None]) -> bool:
        """Lock an existing user, apply ``change``, queue the copy, commit. False when
        the user is unknown or the change was refused; StoreUnavailable when SQL
        failed (a failure is never reported as an unknown user)."""
        try:
            async with self._db.write() as session:
                row = await repo.lock_user(session, user_id)
                if row is None:
                    raise _Refused  # an unknown user: nothing to change, nothing committed
                change(row)
                now = self._clock()
                row.updated_at = now
                self._outbox.upsert_user(session, row, now)
            return True
        except _Refused:
            return False
        except Exception as exc:
            logger.exception("memory: profile change failed user=%s", user_id)
            raise StoreUnavailable(user_id) from exc
        finally:
            self._cache.invalidate(user_id)

    async def _write(
        self,
        user_id: str,
        change: Callable[[Session, datetime], Awaitable[T]],
        what: str,
    ) -> T | None:
        try:
            async with self._db.write() as session:
                return await change(session, self._clock())
        except ValueError as exc:
            if isinstance(exc, ValidationError):
                raise invalid(exc) from None
            raise
        except Exception:
            logger.exception("memory: %s failed user=%s", what, user_id)
            return None
        finally:
            self._cache.invalidate(user_id)
