"""The one clock: services take a ``Clock`` in their constructor (tests pass a fixed
one) and default to :func:`utcnow`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

#: Returns the current time, timezone-aware.
Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)
