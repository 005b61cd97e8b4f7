"""The farm's own clock: every time a farmer reads and every day boundary is in the
farm's timezone (``farm_profiles.timezone``, an IANA name, Europe/Kyiv by default)."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from db.models import DEFAULT_TIMEZONE

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_TIMEZONE", "day_bounds", "local_time", "local_today", "valid_zone", "zone"]


def _load(name: str) -> ZoneInfo | None:
    # ZoneInfo keeps its own cache of loaded zones.
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def valid_zone(name: str) -> str | None:
    """The zone's canonical spelling when ``name`` is one ("europe/kyiv" too), else None."""
    name = name.strip()
    if not name or ("/" not in name and name.upper() not in ("UTC", "GMT")):
        return None
    if _load(name) is not None:
        return name
    # Zone names are case-sensitive on disk; farmers and operators type them anyhow.
    fixed = "/".join(part[:1].upper() + part[1:] for part in name.lower().split("/"))
    fixed = "_".join(p[:1].upper() + p[1:] for p in fixed.split("_"))
    return fixed if _load(fixed) is not None else None


def zone(name: str | None) -> ZoneInfo:
    found = _load(name) if name else None
    if found is None:
        if name:
            logger.warning("unknown timezone %r, using %s", name, DEFAULT_TIMEZONE)
        found = _load(DEFAULT_TIMEZONE)
    assert found is not None  # tzdata ships with the project
    return found


def local_time(moment: datetime, tz: str | None) -> datetime:
    """A stored moment (aware, or naive UTC as SQLite gives it back) on the farm's clock."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone(tz))


def local_today(now: datetime, tz: str | None) -> date:
    return local_time(now, tz).date()


def day_bounds(start: date, end: date, tz: str | None) -> tuple[datetime, datetime]:
    """[first moment of ``start``, first moment after ``end``) on the farm's clock, in UTC."""
    info = zone(tz)
    since = datetime.combine(start, time.min, info).astimezone(UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, info).astimezone(UTC)
    return since, until
