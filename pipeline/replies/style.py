"""Style adapter (seed 3.3): the system-prompt prefix that fits answers to a person."""

from __future__ import annotations

import logging

from pipeline.farm.naming import FarmNames
from pipeline.language.catalog import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import Language

logger = logging.getLogger(__name__)


def display_name(profile: UserProfile, catalog: Catalog, lang: Language) -> str:
    return profile.name or catalog.text(lang, "address.default")


def farm_summary(
    farm: FarmProfile, catalog: Catalog, lang: Language, names: FarmNames | None = None
) -> str:
    """The farm in words: names from ``names`` (the farm's dictionary), else the ids'
    slugs as words; never a raw ``field:``/``crop:`` id or a phase code."""
    if not (farm.farm_name or farm.field_ids or farm.crop_ids):
        return catalog.text(lang, "style.farm_unknown")
    none = catalog.text(lang, "style.none")
    names = names or FarmNames()
    code = farm.seasonal_context.current_phase
    phase = catalog.text(lang, f"phase.{code}") if code else none
    return catalog.text(
        lang,
        "style.farm_summary",
        farm_name=farm.farm_name or none,
        fields=", ".join(names.field_list(farm.field_ids)) or none,
        crops=", ".join(names.crop_list(farm.crop_ids)) or none,
        phase=phase,
    )


def build_prefix(
    profile: UserProfile,
    farm: FarmProfile,
    catalog: Catalog,
    lang: Language,
    names: FarmNames | None = None,
) -> str:
    """The prefix for Stepan's system prompt; empty on any error (seed 3.3 fail-safe).
    No ids: the user by name, the farm's fields and crops by ``names``."""
    try:
        return catalog.text(
            lang,
            "style.prefix",
            level=catalog.text(lang, f"style.level.{profile.expertise_level}"),
            style=catalog.text(lang, f"style.style.{profile.preferred_style}"),
            name=display_name(profile, catalog, lang),
            farm=farm_summary(farm, catalog, lang, names),
        )
    except Exception:
        logger.exception("style_adapter: prefix failed user=%s", profile.user_id)
        return ""
