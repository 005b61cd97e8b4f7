"""Style adapter (seed 3.3): the system-prompt prefix that fits answers to a person."""

from __future__ import annotations

import logging

from pipeline.farm.naming import FarmNames
from pipeline.language.texts import Texts
from pipeline.language.vocative import address
from pipeline.profiles import FarmProfile, UserProfile

logger = logging.getLogger(__name__)


def display_name(profile: UserProfile, texts: Texts) -> str:
    """The name as a fact («Ви — Олена»): as the farmer gave it."""
    return profile.name or texts.text("address.default")


def addressed(profile: UserProfile, texts: Texts) -> str:
    """The name that speaks to the farmer («Вітаю, Олено!»): the vocative in Ukrainian;
    the catalog's own word when there is no name («друже» is one already)."""
    return address(profile.name, texts.lang) if profile.name else texts.text("address.default")


def farm_summary(
    farm: FarmProfile, texts: Texts, names: FarmNames | None = None, phase: str | None = None
) -> str:
    """The farm in words: names from ``names`` (the farm's dictionary), else the ids'
    slugs as words; never a raw ``field:``/``crop:`` id or a phase code. ``phase``: the
    calendar's reading of the profile's (pipeline/farm/season_calendar.py), when the
    caller has it."""
    if not (farm.farm_name or farm.field_ids or farm.crop_ids):
        return texts.text("style.farm_unknown")
    none = texts.text("style.none")
    names = names or FarmNames()
    code = phase or farm.seasonal_context.current_phase
    phase_word = texts.text(f"phase.{code}") if code else none
    return texts.text(
        "style.farm_summary",
        farm_name=farm.farm_name or none,
        fields=", ".join(names.field_list(farm.field_ids)) or none,
        crops=", ".join(names.crop_list(farm.crop_ids)) or none,
        phase=phase_word,
    )


def build_prefix(
    profile: UserProfile,
    farm: FarmProfile,
    texts: Texts,
    names: FarmNames | None = None,
    *,
    phase: str | None = None,
) -> str:
    """The prefix for Stepan's system prompt; empty on any error (seed 3.3 fail-safe).
    No ids: the user by name, the farm's fields and crops by ``names``."""
    try:
        return texts.text(
            "style.prefix",
            level=texts.text(f"style.level.{profile.expertise_level}"),
            style=texts.text(f"style.style.{profile.preferred_style}"),
            name=addressed(profile, texts),
            farm=farm_summary(farm, texts, names, phase),
        )
    except Exception:
        logger.exception("style_adapter: prefix failed user=%s", profile.user_id)
        return ""
