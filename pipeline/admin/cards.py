"""Plain-text cards for operators and for users' own view of their memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pipeline.admin.platform import Check
from pipeline.admin.status_text import joined
from pipeline.farm.localtime import local_time
from pipeline.farm.naming import FarmNames, readable_id
from pipeline.farm.reports.labels import sensor_label
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.text import clean_input
from pipeline.types import Language

DATE_TIME = "%d.%m.%Y %H:%M"


def _when(value: datetime | None, tz: str | None, catalog: Catalog, lang: Language) -> str:
    """A stored moment on the farm's clock, as a farmer reads it (never UTC)."""
    if value is None:
        return catalog.text(lang, "cards.never")
    return local_time(value, tz).strftime(DATE_TIME)


def _items(values: Sequence[str], catalog: Catalog, lang: Language) -> str:
    return ", ".join(values) if values else catalog.text(lang, "style.none")


def topic_words(intents: Sequence[str], catalog: Catalog, lang: Language) -> list[str]:
    """Intents as words in the user's language («поради, записи операцій»); social
    ones (greetings, thanks) have no topic word and are left out."""
    words = []
    for intent in intents:
        key = f"me.topic.{intent}"
        if catalog.has(lang, key) and (word := catalog.text(lang, key)) not in words:
            words.append(word)
    return words


def _integrations(farm: FarmProfile, catalog: Catalog, lang: Language) -> list[str]:
    words = []
    for name in farm.active_integrations:
        key = f"me.integration.{name}"
        words.append(catalog.text(lang, key) if catalog.has(lang, key) else readable_id(name))
    return words


def _sensors(farm: FarmProfile, catalog: Catalog, lang: Language, *, prefix: str) -> str:
    if not farm.has_iot:
        return catalog.text(lang, f"{prefix}_none")
    kinds = [sensor_label(Texts(catalog, lang), kind) for kind in farm.iot_sensors.sensor_types]
    yes = catalog.text(lang, f"{prefix}_yes")
    return f"{yes} ({', '.join(kinds)})" if kinds else yes


def _level(profile: UserProfile, catalog: Catalog, lang: Language) -> str:
    level = catalog.text(lang, f"expertise.{profile.expertise_level}")
    if profile.expertise_locked:
        level = f"{level} ({catalog.text(lang, 'cards.set_by_operator')})"
    return level


def _phase(farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    phase = farm.seasonal_context.current_phase
    if not phase:
        return catalog.text(lang, "style.none")
    word = catalog.text(lang, f"phase.{phase}")
    return f"{word} ({catalog.text(lang, 'cards.set_by_operator')})" if farm.phase_locked else word


def _telegram_id(user_id: str) -> str:
    return user_id.removeprefix("tg:")


def profile_card(
    profile: UserProfile, catalog: Catalog, lang: Language, tz: str | None = None
) -> str:
    """The operator's /profile card: the Telegram id (operators type it in commands),
    everything else in words."""
    return catalog.text(
        lang,
        "cards.profile",
        user_id=_telegram_id(profile.user_id),
        name=profile.name or catalog.text(lang, "cards.unknown"),
        expertise=_level(profile, catalog, lang),
        style=catalog.text(lang, f"styles.{profile.preferred_style}"),
        last_seen=_when(profile.last_seen, tz, catalog, lang),
        count=profile.interaction_count,
        intents=_items(topic_words(profile.known_intents, catalog, lang), catalog, lang),
    )


def farm_card(farm: FarmProfile, names: FarmNames, catalog: Catalog, lang: Language) -> str:
    """The operator's /farm card: the farm's own names for fields and crops."""
    thresholds = farm.alert_thresholds
    return catalog.text(
        lang,
        "cards.farm",
        farm_name=farm.farm_name or catalog.text(lang, "cards.unknown"),
        fields=_items(names.field_list(farm.field_ids), catalog, lang),
        crops=_items(names.crop_list(farm.crop_ids), catalog, lang),
        region=names.region or catalog.text(lang, "style.none"),
        integrations=_items(_integrations(farm, catalog, lang), catalog, lang),
        iot=_sensors(farm, catalog, lang, prefix="cards.sensors"),
        phase=_phase(farm, catalog, lang),
        moisture=catalog.number(lang, thresholds.soil_moisture_min),
        tmin=catalog.number(lang, thresholds.temperature_min),
        tmax=catalog.number(lang, thresholds.temperature_max),
        timezone=farm.timezone,
    )


def _line(catalog: Catalog, lang: Language, key: str, value: str) -> str:
    return catalog.text(lang, f"me.line.{key}", value=value)


def _about_you(profile: UserProfile, farm: FarmProfile, catalog: Catalog, lang: Language) -> str:
    lines = [catalog.text(lang, "me.line.you")]
    if profile.name:
        lines.append(_line(catalog, lang, "name", profile.name))
    language = catalog.text(lang, f"me.language.{profile.preferred_language}")
    lines.append(_line(catalog, lang, "language", language))
    lines.append(
        _line(catalog, lang, "style", catalog.text(lang, f"styles.{profile.preferred_style}"))
    )
    lines.append(_line(catalog, lang, "level", _level(profile, catalog, lang)))
    if profile.interaction_count:
        times = catalog.plural(lang, "plural.times", profile.interaction_count)
        when = _when(profile.last_seen, farm.timezone, catalog, lang)
        lines.append(catalog.text(lang, "me.line.talks", times=times, when=when))
    topics = topic_words(farm.typical_intents or profile.known_intents, catalog, lang)
    if topics:
        lines.append(_line(catalog, lang, "topics", ", ".join(topics)))
    return "\n".join(lines)


def _about_farm(farm: FarmProfile, names: FarmNames, catalog: Catalog, lang: Language) -> str:
    none = catalog.text(lang, "style.none")
    lines = [_line(catalog, lang, "farm", farm.farm_name or catalog.text(lang, "cards.unknown"))]
    lines.append(
        _line(catalog, lang, "fields", _items(names.field_list(farm.field_ids), catalog, lang))
    )
    lines.append(
        _line(catalog, lang, "crops", _items(names.crop_list(farm.crop_ids), catalog, lang))
    )
    if names.region:
        lines.append(_line(catalog, lang, "region", names.region))
    sensors = _sensors(farm, catalog, lang, prefix="me.sensors")
    lines.append(_line(catalog, lang, "sensors", sensors))
    if integrations := _integrations(farm, catalog, lang):
        lines.append(_line(catalog, lang, "integrations", ", ".join(integrations)))
    phase = _phase(farm, catalog, lang)
    if phase != none:
        lines.append(_line(catalog, lang, "phase", phase))
    thresholds = farm.alert_thresholds
    lines.append(
        catalog.text(
            lang,
            "me.line.thresholds",
            moisture=catalog.number(lang, thresholds.soil_moisture_min),
            tmin=catalog.number(lang, thresholds.temperature_min),
            tmax=catalog.number(lang, thresholds.temperature_max),
        )
    )
    lines.append(_line(catalog, lang, "timezone", farm.timezone))
    return "\n".join(lines)


def my_memory(
    profile: UserProfile,
    farm: FarmProfile,
    names: FarmNames,
    catalog: Catalog,
    lang: Language,
    conversations: str | None = None,
) -> str:
    """What Stepan remembers about the user, in the farmer's words and what each item
    is for (/me): names, never ids or slugs; topics as words; ``conversations`` is the
    summaries' block (pipeline/recall/card.py), None without conversation memory."""
    return "\n\n".join(
        block
        for block in (
            catalog.text(lang, "me.header"),
            _about_you(profile, farm, catalog, lang),
            _about_farm(farm, names, catalog, lang),
            conversations,
            catalog.text(lang, "me.footer"),
        )
        if block
    )


_ICONS = {"ok": "✅", "degraded": "⚠️", "down": "❌", "off": "⚪"}


def status_card(checks: Sequence[Check], catalog: Catalog, lang: Language) -> str:
    """/status in words (pipeline/admin/status_text.py): the technical details stay in the log."""
    lines = [catalog.text(lang, "admin.status_header")]
    lines += [
        catalog.text(
            lang,
            "status.line" if check.says else "status.line_bare",
            icon=_ICONS[check.state],
            service=check.label.render(catalog, lang),
            state=catalog.text(lang, f"compose.state.{check.state}"),
            says=joined(check.says, catalog, lang),
        )
        for check in checks
    ]
    return "\n".join(lines)


#: A name a user gives Stepan (/me «✏️ Змінити ім'я»): short, with letters, no link.
NAME_MAX = 64
NAME_MAX_WORDS = 4


def valid_name(text: str) -> str | None:
    """The name as stored, or None when it is not one (empty, too long, several
    lines or words, digits, a command, a link or a mention)."""
    name = " ".join(clean_input(text).split())
    if not name or len(name) > NAME_MAX or "\n" in text.strip():
        return None
    # A name is a few words without numbers: «запиши полив 20 мм» is not one.
    if len(name.split()) > NAME_MAX_WORDS or any(char.isdigit() for char in name):
        return None
    lowered = name.casefold()
    if name.startswith(("/", "@")) or "://" in lowered or "www." in lowered or "t.me/" in lowered:
        return None
    return name if any(char.isalpha() for char in name) else None
