"""Whether the database takes writes, and why not (issue 29 points 2 and 3).

``Database`` (db/uow.py) records each write's failure here and clears it on the
next commit; the SQLite file watch (db/file_watch.py) marks the file gone, which no
commit clears: writes into an unlinked file succeed and are lost at the next start.
/status, /readyz, the readings endpoint and the answers to unstored updates read it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    OperationalError,
    ProgrammingError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout


class WriteProblem(StrEnum):
    LOCKED = "locked"  # another writer holds the lock past the timeout
    READ_ONLY = "read_only"  # the file or the file system refuses writes
    DISK_FULL = "disk_full"
    GONE = "gone"  # the SQLite file was deleted or replaced under the bot
    ERROR = "error"  # any other database error


class StoreGone(OperationalError):
    """The SQLite file this process opened is no longer the one at its path: no write
    is taken (it would land in an unlinked file, lost at the next start)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, None, Exception(detail))


_MARKS = (
    (WriteProblem.DISK_FULL, ("disk is full", "no space left", "disk full", "diskfull")),
    (WriteProblem.READ_ONLY, ("readonly", "read-only", "read only")),
    (
        WriteProblem.LOCKED,
        ("database is locked", "lock timeout", "lock_timeout", "locknotavailable", "busy"),
    ),
)


def classify(error: BaseException) -> WriteProblem | None:
    """What kind of write failure ``error`` is; None if it is not the database's."""
    if isinstance(error, StoreGone):
        return WriteProblem.GONE
    if isinstance(error, PoolTimeout | TimeoutError):
        return WriteProblem.LOCKED
    if isinstance(error, IntegrityError | ProgrammingError | DataError):
        return None  # the statement's own fault (a conflict a use case handles)
    if not isinstance(error, DBAPIError):
        cause = error.__cause__
        return classify(cause) if isinstance(cause, BaseException) else None
    text = f"{type(error.orig).__name__} {error.orig}".lower()
    for problem, marks in _MARKS:
        if any(mark in text for mark in marks):
            return problem
    return WriteProblem.ERROR


@dataclass(slots=True)
class StoreHealth:
    #: The last write's failure, cleared by the next commit.
    problem: WriteProblem | None = None
    detail: str = ""
    since: float | None = None
    #: Set by the file watch; stays until a restart.
    gone: str | None = None
    #: The file system as the watch last saw it (read-only, full); writes still try.
    watched: WriteProblem | None = None

    def failed(self, error: BaseException) -> WriteProblem | None:
        problem = classify(error)
        if problem is not None and problem is not WriteProblem.GONE:
            if self.problem is None:
                self.since = time.monotonic()
            self.problem, self.detail = problem, f"{type(error).__name__}: {error}"[:300]
        return problem

    def committed(self) -> None:
        if self.problem is not None:
            self.problem, self.detail, self.since = None, "", None

    def mark_gone(self, detail: str) -> None:
        self.gone = detail

    @property
    def writable(self) -> bool:
        return self.gone is None and self.problem is None

    @property
    def reason(self) -> WriteProblem | None:
        if self.gone is not None:
            return WriteProblem.GONE
        return self.problem or self.watched
