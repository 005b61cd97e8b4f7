"""Profiles to and from their SQL rows, and the validation every edit goes through.
Pure functions: no session, no transaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from db.models import FarmProfileRow, UserProfileRow
from db.repositories.profiles import Candidate
from pipeline.memory.habits.expertise import upgraded_level
from pipeline.profiles import Expertise, FarmProfile, UserProfile

T = TypeVar("T")
R = TypeVar("R")

_USER_FIELDS = tuple(name for name in UserProfile.model_fields)
_FARM_FIELDS = tuple(name for name in FarmProfile.model_fields)
_NESTED_GROUPS = ("seasonal_context", "iot_sensors", "alert_thresholds")

#: What ``update_user`` may change. The level has its own method (it locks).
USER_EDITABLE = frozenset({"name", "preferred_language", "preferred_style", "context_notes"})
#: ``update_farm`` keys: top-level fields, and flat names for the nested objects.
FARM_TOP_LEVEL = frozenset(
    {
        "farm_name",
        "field_ids",
        "crop_ids",
        "active_integrations",
        "typical_intents",
        "dict_pending_count",
        "timezone",
        "region",
    }
)
FARM_NESTED = {
    "current_phase": "seasonal_context",
    "active_operations": "seasonal_context",
    "hemisphere": "seasonal_context",
    "approximate_month": "seasonal_context",
    "has_iot_integration": "iot_sensors",
    "sensor_types": "iot_sensors",
    "last_alert": "iot_sensors",
    "switched_off": "iot_sensors",
    "soil_moisture_min": "alert_thresholds",
    "temperature_min": "alert_thresholds",
    "temperature_max": "alert_thresholds",
}
FARM_EDITABLE = FARM_TOP_LEVEL | frozenset(FARM_NESTED)


def user_from_row(row: UserProfileRow) -> UserProfile:
    return UserProfile.model_validate({name: getattr(row, name) for name in _USER_FIELDS})


def user_from_values(values: Mapping[str, Any]) -> UserProfile:
    """``user_from_row`` for a row's column values (``repo.lock_user_values``)."""
    return UserProfile.model_validate({name: values[name] for name in _USER_FIELDS})


def farm_from_row(row: FarmProfileRow) -> FarmProfile:
    return FarmProfile.model_validate({name: getattr(row, name) for name in _FARM_FIELDS})


def user_columns(profile: UserProfile) -> dict[str, Any]:
    values = profile.model_dump()
    values["recent_topics"] = [topic.model_dump(mode="json") for topic in profile.recent_topics]
    if values["updated_at"] is None:
        del values["updated_at"]  # the column's server default fills it
    return values


def farm_columns(farm: FarmProfile) -> dict[str, Any]:
    values = farm.model_dump()
    as_json = farm.model_dump(mode="json")
    for name in _NESTED_GROUPS:
        values[name] = as_json[name]
    if values["updated_at"] is None:
        del values["updated_at"]
    return values


def valid(convert: Callable[[R], T], row: R) -> T | None:
    """``convert(row)``, or None for a hand-edited row SQL accepts but the model does not."""
    try:
        return convert(row)
    except ValidationError:
        return None


def rule_level(row: UserProfileRow | Candidate) -> Expertise | None:
    """The level the expertise rule moves this row to, or None (docs/memory.md)."""
    return upgraded_level(
        row.expertise_level,
        interaction_count=row.interaction_count or 0,
        known_intents=row.known_intents or [],
        locked=row.expertise_locked,
    )


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a profile change was refused, for the catalogs to word
    (``admin.field.<field>`` and ``admin.problem.<kind>``; pipeline/admin_words.py)."""

    field: str
    #: pydantic's error type ("less_than_equal", "string_too_long") or our own
    #: ("temperature_order").
    kind: str
    #: The bound broken, when there is one (100 for "at most 100").
    limit: Any = None


class InvalidProfile(ValueError):
    """A change the profile refuses: the English line for the log, the problems for
    the person who typed it."""

    def __init__(self, message: str, problems: tuple[Problem, ...]) -> None:
        super().__init__(message)
        self.problems = problems


_LIMITS = ("le", "ge", "lt", "gt", "max_length", "min_length")


def invalid(exc: ValidationError) -> InvalidProfile:
    problems = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = [str(part) for part in error["loc"]]
        if len(loc) > 1 and loc[0] in _NESTED_GROUPS:
            loc = loc[1:]
        ctx = error.get("ctx") or {}
        limit = next((ctx[name] for name in _LIMITS if name in ctx), None)
        problems.append(Problem(".".join(loc), str(error["type"]), limit))
    return InvalidProfile(explain(exc), tuple(problems))


def explain(exc: ValidationError) -> str:
    """One readable line per problem, named by the key the caller used."""
    parts = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = [str(part) for part in error["loc"]]
        if len(loc) > 1 and loc[0] in _NESTED_GROUPS:
            loc = loc[1:]
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{'.'.join(loc)}: {message}" if loc else message)
    return "; ".join(parts)


def validate_user(base: UserProfile, changes: dict[str, Any]) -> UserProfile:
    try:
        return UserProfile.model_validate({**base.model_dump(), **changes})
    except ValidationError as exc:
        raise invalid(exc) from None


def validate_farm(base: FarmProfile, changes: dict[str, Any]) -> FarmProfile:
    data = base.model_dump()
    for name, value in changes.items():
        group = FARM_NESTED.get(name)
        if group is None:
            data[name] = value
        else:
            data[group] = {**data[group], name: value}
    try:
        return FarmProfile.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc) from None
