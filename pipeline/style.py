"""Style adapter (seed 3.3): the system-prompt prefix that fits answers to a person."""

from __future__ import annotations

import logging

from pipeline.i18n import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import Language

logger = logging.getLogger(__name__)


def display_name(profile: UserProfile, catalog: Catalog, lang: Language) -> str:
    return profile.name or catalog.text(lang, "address.default")


def farm_summary(farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    if not (farm.farm_name or farm.field_ids or farm.crop_ids):
        return catalog.text(lang, "style.farm_unknown")
    none = catalog.text(lang, "style.none")
    return catalog.text(
        lang,
        "style.farm_summary",
        farm_name=farm.farm_name or none,
        fields=", ".join(farm.field_ids) or none,
        crops=", ".join(farm.crop_ids) or none,
        phase=farm.seasonal_context.current_phase or none,
    )


def build_prefix(profile: UserProfile, farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    """The prefix for Stepan's system prompt; empty on any error (seed 3.3 fail-safe)."""
    try:
        return catalog.text(
            lang,
            "style.prefix",
            level=catalog.text(lang, f"style.level.{profile.expertise_level}"),
            style=catalog.text(lang, f"style.style.{profile.preferred_style}"),
            name=display_name(profile, catalog, lang),
            farm=farm_summary(farm, catalog, lang),
        )
    except Exception:
        logger.exception("style_adapter: prefix failed user=%s", profile.user_id)
        return ""
