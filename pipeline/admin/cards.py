"""Plain-text cards for operators and for users' own view of their memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pipeline.admin.platform import Check
from pipeline.admin.status_text import joined
from pipeline.farm.localtime import local_time
from pipeline.farm.naming import FarmNames, readable_id
from pipeline.farm.reports.labels import sensor_label
from pipeline.language.texts import Texts
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.text import clean_input
from pipeline.weather.geo import Point, point_text

DATE_TIME = "%d.%m.%Y %H:%M"


def _when(value: datetime | None, tz: str | None, texts: Texts) -> str:
    """A stored moment on the farm's clock, as a farmer reads it (never UTC)."""
    if value is None:
        return texts.text("cards.never")
    return local_time(value, tz).strftime(DATE_TIME)


def _items(values: Sequence[str], texts: Texts) -> str:
    return ", ".join(values) if values else texts.text("style.none")


def topic_words(intents: Sequence[str], texts: Texts) -> list[str]:
    """Intents as words in the user's language («поради, записи операцій»); social
    ones (greetings, thanks) have no topic word and are left out."""
    words = []
    for intent in intents:
        key = f"me.topic.{intent}"
        if texts.has(key) and (word := texts.text(key)) not in words:
            words.append(word)
    return words


def _integrations(farm: FarmProfile, texts: Texts) -> list[str]:
    words = []
    for name in farm.active_integrations:
        key = f"me.integration.{name}"
        words.append(texts.text(key) if texts.has(key) else readable_id(name))
    return words


def _sensors(farm: FarmProfile, texts: Texts, *, prefix: str) -> str:
    if not farm.has_iot:
        return texts.text(f"{prefix}_none")
    kinds = [sensor_label(texts, kind) for kind in farm.iot_sensors.sensor_types]
    yes = texts.text(f"{prefix}_yes")
    return f"{yes} ({', '.join(kinds)})" if kinds else yes


def _level(profile: UserProfile, texts: Texts) -> str:
    level = texts.text(f"expertise.{profile.expertise_level}")
    if profile.expertise_locked:
        level = f"{level} ({texts.text('cards.set_by_operator')})"
    return level


def _phase(farm: FarmProfile, texts: Texts) -> str:
    phase = farm.seasonal_context.current_phase
    if not phase:
        return texts.text("style.none")
    word = texts.text(f"phase.{phase}")
    return f"{word} ({texts.text('cards.set_by_operator')})" if farm.phase_locked else word


def _telegram_id(user_id: str) -> str:
    return user_id.removeprefix("tg:")


def profile_card(profile: UserProfile, texts: Texts, tz: str | None = None) -> str:
    """The operator's /profile card: the Telegram id (operators type it in commands),
    everything else in words."""
    return texts.text(
        "cards.profile",
        user_id=_telegram_id(profile.user_id),
        name=profile.name or texts.text("cards.unknown"),
        expertise=_level(profile, texts),
        style=texts.text(f"styles.{profile.preferred_style}"),
        last_seen=_when(profile.last_seen, tz, texts),
        count=profile.interaction_count,
        intents=_items(topic_words(profile.known_intents, texts), texts),
    )


def _field_items(farm: FarmProfile, names: FarmNames, texts: Texts) -> list[str]:
    """The fields by name, each with its point when it has one (docs/weather.md)."""
    items: dict[str, str] = {}
    for field_id in farm.field_ids:
        name = names.field(field_id)
        point = names.field_points.get(field_id)
        if point is not None:
            name = texts.text(
                "cards.field_point", name=name, point=point_text(texts, Point(*point))
            )
        items.setdefault(names.field(field_id), name)
    return list(items.values())


def _farm_point(names: FarmNames, texts: Texts) -> str:
    if names.point is not None:
        return point_text(texts, Point(*names.point))
    # Without a point the forecast is the oblast centre's (docs/weather.md).
    return texts.text("cards.point_region" if names.region else "style.none")


def farm_card(farm: FarmProfile, names: FarmNames, texts: Texts) -> str:
    """The operator's /farm card: the farm's own names for fields and crops, and
    where the farm and its fields are."""
    thresholds = farm.alert_thresholds
    return texts.text(
        "cards.farm",
        farm_name=farm.farm_name or texts.text("cards.unknown"),
        point=_farm_point(names, texts),
        fields=_items(_field_items(farm, names, texts), texts),
        crops=_items(names.crop_list(farm.crop_ids), texts),
        region=names.region or texts.text("style.none"),
        integrations=_items(_integrations(farm, texts), texts),
        iot=_sensors(farm, texts, prefix="cards.sensors"),
        phase=_phase(farm, texts),
        moisture=texts.number(thresholds.soil_moisture_min),
        tmin=texts.number(thresholds.temperature_min),
        tmax=texts.number(thresholds.temperature_max),
        timezone=farm.timezone,
    )


def _line(texts: Texts, key: str, value: str) -> str:
    return texts.text(f"me.line.{key}", value=value)


def _about_you(profile: UserProfile, farm: FarmProfile, texts: Texts) -> str:
    lines = [texts.text("me.line.you")]
    if profile.name:
        lines.append(_line(texts, "name", profile.name))
    language = texts.text(f"me.language.{profile.preferred_language}")
    lines.append(_line(texts, "language", language))
    lines.append(_line(texts, "style", texts.text(f"styles.{profile.preferred_style}")))
    lines.append(_line(texts, "level", _level(profile, texts)))
    if profile.interaction_count:
        times = texts.plural("plural.times", profile.interaction_count)
        when = _when(profile.last_seen, farm.timezone, texts)
        lines.append(texts.text("me.line.talks", times=times, when=when))
    topics = topic_words(farm.typical_intents or profile.known_intents, texts)
    if topics:
        lines.append(_line(texts, "topics", ", ".join(topics)))
    return "\n".join(lines)


def _about_farm(farm: FarmProfile, names: FarmNames, texts: Texts) -> str:
    none = texts.text("style.none")
    lines = [_line(texts, "farm", farm.farm_name or texts.text("cards.unknown"))]
    lines.append(_line(texts, "fields", _items(names.field_list(farm.field_ids), texts)))
    lines.append(_line(texts, "crops", _items(names.crop_list(farm.crop_ids), texts)))
    if names.region:
        lines.append(_line(texts, "region", names.region))
    if names.point is not None or names.field_points:
        # What Stepan keeps of where the farm is (docs/weather.md): the farm's point
        # and how many fields have one.
        where = point_text(texts, Point(*names.point)) if names.point else none
        fields = texts.plural("plural.field_points", len(names.field_points))
        lines.append(texts.text("me.line.point", value=where, fields=fields))
    sensors = _sensors(farm, texts, prefix="me.sensors")
    lines.append(_line(texts, "sensors", sensors))
    if integrations := _integrations(farm, texts):
        lines.append(_line(texts, "integrations", ", ".join(integrations)))
    phase = _phase(farm, texts)
    if phase != none:
        lines.append(_line(texts, "phase", phase))
    thresholds = farm.alert_thresholds
    lines.append(
        texts.text(
            "me.line.thresholds",
            moisture=texts.number(thresholds.soil_moisture_min),
            tmin=texts.number(thresholds.temperature_min),
            tmax=texts.number(thresholds.temperature_max),
        )
    )
    lines.append(_line(texts, "timezone", farm.timezone))
    return "\n".join(lines)


def my_memory(
    profile: UserProfile,
    farm: FarmProfile,
    names: FarmNames,
    texts: Texts,
    conversations: str | None = None,
) -> str:
    """What Stepan remembers about the user, in the farmer's words and what each item
    is for (/me): names, never ids or slugs; topics as words; ``conversations`` is the
    summaries' block (pipeline/recall/card.py), None without conversation memory."""
    return "\n\n".join(
        block
        for block in (
            texts.text("me.header"),
            _about_you(profile, farm, texts),
            _about_farm(farm, names, texts),
            conversations,
            texts.text("me.footer"),
        )
        if block
    )


_ICONS = {"ok": "✅", "degraded": "⚠️", "down": "❌", "off": "⚪"}


def status_card(checks: Sequence[Check], texts: Texts) -> str:
    """/status in words (pipeline/admin/status_text.py): the technical details stay in the log."""
    lines = [texts.text("admin.status_header")]
    lines += [
        texts.text(
            "status.line" if check.says else "status.line_bare",
            icon=_ICONS[check.state],
            service=check.label.render(texts),
            state=texts.text(f"compose.state.{check.state}"),
            says=joined(check.says, texts),
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
