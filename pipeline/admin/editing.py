"""Operators' edits of a profile or a farm, for their commands (/profile set, /farm
update) and the buttons of their cards alike; the handlers only parse and answer.

A phase set by hand locks it (the journal no longer infers it) until "auto"; the
sensor switch sets has_iot_integration and the sensor integration together."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.admin.edits import AUTO, PROFILE_KEYS, SENSOR_SWITCH, AdminError, Edit
from pipeline.admin.user_ids import stepan_user_id
from pipeline.agronomy.region import FarmRegions
from pipeline.memory import ProfileEditor, ProfileLearner, ProfileLoader, StoreUnavailable

__all__ = ["FarmEdits", "ProfileEdits", "switch_word"]


def switch_word(on: bool) -> str:
    """The sensor switch's word (``sensors=on|off``) for ``on``."""
    return next(word for word, value in SENSOR_SWITCH.items() if value is on)


@dataclass(frozen=True, slots=True)
class ProfileEdits:
    editor: ProfileEditor

    async def set(self, user: int, key: str, value: str) -> bool:
        """``key`` of Telegram user ``user``'s profile to ``value``; False for an
        unknown user or a value the key does not take."""
        user_id = stepan_user_id(user)
        editor = self.editor
        if key == "expertise_level" and value == AUTO:
            # The operator's lock goes: the expertise rule moves the level again.
            return await editor.unlock_expertise(user_id)
        if key == "expertise_level" and value in PROFILE_KEYS[key]:
            return await editor.set_expertise(user_id, value, by_operator=True)  # type: ignore[arg-type]
        if key == "preferred_style" and value in PROFILE_KEYS[key]:
            return await editor.set_style(user_id, value)  # type: ignore[arg-type]
        return False

    async def apply(self, user: int, edit: Edit) -> bool:
        """`/profile [id] set key=value`, parsed (pipeline/admin/edits.py)."""
        return await self.set(user, edit.key, str(edit.value))


@dataclass(frozen=True, slots=True)
class FarmEdits:
    profiles: ProfileLoader
    editor: ProfileEditor
    learner: ProfileLearner
    regions: FarmRegions

    async def set(self, user_id: str, key: str, value: str) -> bool:
        """A phase (locks it), "auto" (unlocks and infers it from the journal now), or
        the sensor switch (``key`` "sensors", "on"/"off")."""
        if key == "sensors":
            await self.learner.set_iot(user_id, SENSOR_SWITCH[value])
            return True
        phase = None if value == AUTO else value
        if await self.editor.update_farm(user_id, current_phase=phase) is None:
            raise StoreUnavailable(user_id)  # never "saved" when it was not
        if phase is None:
            await self.learner.refresh(user_id)
        return True

    async def press(self, user: int, key: str, value: str) -> bool:
        """A button of the /farm card: False (nothing changed) for a user Stepan does
        not know."""
        user_id = stepan_user_id(user)
        if not (await self.profiles.load_stored(user_id)).known:
            return False
        return await self.set(user_id, key, value)

    async def apply(self, user: int, edit: Edit) -> bool:
        """`/farm [id] update key=value`, parsed (pipeline/admin/edits.py): False for
        an unknown user, AdminError for a region nobody knows, InvalidProfile for a
        value the profile refuses."""
        user_id = stepan_user_id(user)
        if not (await self.profiles.load_stored(user_id)).known:
            return False
        if edit.key in ("current_phase", "sensors"):
            return await self.set(user_id, edit.key, str(edit.value))
        if edit.key == "region":
            region = self.regions.read(str(edit.value))
            if region is None:
                raise AdminError("admin.bad_region", value=str(edit.value))
            return await self.regions.set(user_id, region)
        await self.editor.update_farm(user_id, **{edit.key: edit.value})
        return True
