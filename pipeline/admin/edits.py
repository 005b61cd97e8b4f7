"""Operators' edits, parsed and validated before anything is written.

`/profile [id] set key=value` and `/farm [id] update key=value`: only the keys below
may change, and only to valid values; anything else is a clear error naming the
allowed keys or values.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import get_args

from pipeline.farm.localtime import valid_zone
from pipeline.language.texts import Texts
from pipeline.memory.profiles.rows import InvalidProfile
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, AlertThresholds, Phase

PHASES: tuple[str, ...] = get_args(Phase)
#: "auto" gives a locked level or phase back to the rules (docs/memory.md).
AUTO = "auto"
PROFILE_KEYS: dict[str, tuple[str, ...]] = {
    "expertise_level": (*EXPERTISE_LEVELS, AUTO),
    "preferred_style": STYLES,
}
THRESHOLD_KEYS = tuple(AlertThresholds.model_fields)
#: ``sensors=on|off``: the farm's IoT integration, as an operator knows it.
SENSOR_SWITCH = {"on": True, "off": False}
FARM_KEYS = ("current_phase", "sensors", "timezone", "region", *THRESHOLD_KEYS)


#: What an operator typed (a ``key`` or a ``value``), echoed in a refusal, is cut to
#: this many characters: a 5,000-character timezone once made the refusal longer than
#: a Telegram message may be, and the operator got an error code instead.
ECHO_LIMIT = 64
_ECHOED = frozenset({"key", "value"})


def _echo(text: str) -> str:
    return text if len(text) <= ECHO_LIMIT else f"{text[: ECHO_LIMIT - 1]}…"


class AdminError(ValueError):
    """A user-facing error: ``key`` is a catalog key, ``params`` fill it (what the
    operator typed cut to ``ECHO_LIMIT`` characters)."""

    def __init__(self, message_key: str, **params: str) -> None:
        super().__init__(message_key)
        self.key = message_key
        self.params = {
            name: _echo(value) if name in _ECHOED else value for name, value in params.items()
        }


@dataclass(frozen=True, slots=True)
class Edit:
    target: int | None  # a Telegram user id; None means the operator's own profile
    key: str
    value: str | float


#: Telegram ids have at most 52 significant bits (Bot API, "Chat.id"); anything
#: longer is not an id, and would overflow the database's integer columns.
MAX_TELEGRAM_ID = 2**52
#: Row ids (pending terms, drafts, handoffs) are 32-bit INTEGER on PostgreSQL.
MAX_ROW_ID = 2**31 - 1
_ASCII_INT = re.compile(r"-?[0-9]{1,19}")


def _bounded(word: str, low: int, high: int) -> int | None:
    # ASCII digits only: str.isdigit() accepts "²" (int() refuses it) and "١٢" (int()
    # takes it), and neither is an id anyone typed on purpose.
    if _ASCII_INT.fullmatch(word) is None:
        return None
    value = int(word)
    return value if low <= value <= high else None


def parse_target(word: str) -> int | None:
    """A Telegram id, or None for anything that is not one (too long included)."""
    return _bounded(word, -MAX_TELEGRAM_ID, MAX_TELEGRAM_ID)


def parse_row_id(word: str) -> int | None:
    """A database row id (a positive 32-bit integer), or None."""
    return _bounded(word, 1, MAX_ROW_ID)


def _split(args: str, verb: str) -> tuple[int | None, str]:
    """ "[id] <verb> key=value" -> (id, "key=value")."""
    words = args.split()
    target = None
    if words and parse_target(words[0]) is not None:
        target = parse_target(words.pop(0))
    if not words or words[0].lower() != verb or len(words) != 2 or "=" not in words[1]:
        raise AdminError(f"admin.usage_{verb}")
    return target, words[1]


def parse_profile_edit(args: str) -> Edit:
    target, pair = _split(args, "set")
    key, _, value = pair.partition("=")
    key, value = key.strip().lower(), value.strip().lower()
    if key not in PROFILE_KEYS:
        raise AdminError("admin.bad_key", key=key, allowed=", ".join(PROFILE_KEYS))
    if value not in PROFILE_KEYS[key]:
        raise AdminError("admin.bad_value", key=key, allowed=", ".join(PROFILE_KEYS[key]))
    return Edit(target, key, value)


def parse_farm_edit(args: str) -> Edit:
    target, pair = _split(args, "update")
    key, _, raw = pair.partition("=")
    key, raw = key.strip().lower(), raw.strip().lower()
    if key == "phase":
        key = "current_phase"
    if key not in FARM_KEYS:
        raise AdminError("admin.bad_key", key=key, allowed=", ".join(FARM_KEYS))
    if key == "timezone":
        zone = valid_zone(pair.partition("=")[2].strip())
        if zone is None:
            raise AdminError("admin.bad_timezone", value=raw)
        return Edit(target, key, zone)
    if key == "region":
        # The oblast as written ("Полтавська"); the handler reads it with the
        # knowledge base's place words.
        if not raw:
            raise AdminError("admin.bad_value", key=key, allowed="Полтавська, Poltava …")
        return Edit(target, key, raw)
    if key == "current_phase":
        if raw not in (*PHASES, AUTO):
            raise AdminError("admin.bad_value", key=key, allowed=", ".join((*PHASES, AUTO)))
        return Edit(target, key, raw)
    if key == "sensors":
        if raw not in SENSOR_SWITCH:
            raise AdminError("admin.bad_value", key=key, allowed=", ".join(SENSOR_SWITCH))
        return Edit(target, key, raw)
    try:
        number = float(raw.replace(",", "."))
    except ValueError:
        raise AdminError("admin.not_a_number", key=key) from None
    if not math.isfinite(number):  # "inf", "nan", "1e999"
        raise AdminError("admin.not_a_number", key=key)
    return Edit(target, key, number)


def refusal_text(error: ValueError, texts: Texts) -> str | None:
    """Why a profile change was refused, in words: the field named as a person says it
    (``admin.field.*``) and the rule it broke (``admin.problem.*``), never pydantic's
    English (issue 16 point 3). None for an error that is not a refused profile value."""
    if not isinstance(error, InvalidProfile):
        return None
    parts: list[str] = []
    for problem in error.problems:
        field_key = f"admin.field.{problem.field.rsplit('.', 1)[-1]}"
        if not texts.has(field_key):
            field_key = "admin.field.other"
        kind_key = f"admin.problem.{problem.kind}"
        if not texts.has(kind_key):
            kind_key = "admin.problem.other"
        limit = problem.limit
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            limit = texts.number(limit)
        parts.append(texts.text(kind_key, field=texts.text(field_key), limit=limit))
    other = texts.text("admin.field.other")
    return "; ".join(parts) or texts.text("admin.problem.other", field=other)
