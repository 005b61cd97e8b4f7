"""Plain-text cards for operators and for users' own view of their memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pipeline.i18n import Catalog
from pipeline.platform_status import Check
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import Language


def _when(value: datetime | None, catalog: Catalog, lang: Language) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else catalog.text(lang, "cards.never")


def _items(values: list[str], catalog: Catalog, lang: Language) -> str:
    return ", ".join(values) if values else catalog.text(lang, "style.none")


def profile_card(profile: UserProfile, catalog: Catalog, lang: Language) -> str:
    level = catalog.text(lang, f"expertise.{profile.expertise_level}")
    if profile.expertise_locked:
        level = f"{level} ({catalog.text(lang, 'cards.set_by_operator')})"
    return catalog.text(
        lang,
        "cards.profile",
        user_id=profile.user_id,
        name=profile.name or catalog.text(lang, "cards.unknown"),
        expertise=level,
        style=catalog.text(lang, f"styles.{profile.preferred_style}"),
        last_seen=_when(profile.last_seen, catalog, lang),
        count=profile.interaction_count,
        intents=_items(profile.known_intents, catalog, lang),
    )


def farm_card(farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    thresholds = farm.alert_thresholds
    phase = farm.seasonal_context.current_phase
    return catalog.text(
        lang,
        "cards.farm",
        farm_name=farm.farm_name or catalog.text(lang, "cards.unknown"),
        fields=_items(farm.field_ids, catalog, lang),
        crops=_items(farm.crop_ids, catalog, lang),
        integrations=_items(farm.active_integrations, catalog, lang),
        iot=catalog.text(lang, "onboarding.yes" if farm.has_iot else "onboarding.no"),
        phase=catalog.text(lang, f"phase.{phase}") if phase else catalog.text(lang, "style.none"),
        moisture=thresholds.soil_moisture_min,
        tmin=thresholds.temperature_min,
        tmax=thresholds.temperature_max,
        timezone=farm.timezone,
    )


def my_memory(profile: UserProfile, farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    """What Stepan remembers about the user, in plain words (/me)."""
    return "\n\n".join(
        (
            catalog.text(lang, "me.header"),
            profile_card(profile, catalog, lang),
            farm_card(farm, catalog, lang),
            catalog.text(lang, "me.footer"),
        )
    )


_ICONS = {"ok": "✅", "degraded": "⚠️", "down": "❌", "off": "⚪"}


def status_card(checks: Sequence[Check], catalog: Catalog, lang: Language) -> str:
    lines = [catalog.text(lang, "admin.status_header")]
    lines += [f"{_ICONS[check.state]} {check.name}: {check.detail}" for check in checks]
    return "\n".join(lines)
