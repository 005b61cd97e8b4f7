"""The SQLite file under the bot: deleted, replaced, read-only or full (issue 29 point 2).

A process keeps its SQLite connection open, so a database file deleted (or replaced by
another file at the same path) while the bot runs goes on answering: every write lands
in the unlinked file and is lost at the next start, and nothing says so. The watch
records the file's device and inode once it is seen and checks them on a short
interval and before every job; the first change marks the store gone
(``StoreHealth.mark_gone``: no write is taken from then on, /status and /readyz turn
red, farmers get the «не можу зберегти» apology), logs one error and tells the
operators through the callback it runs with. Only a restart clears it, and the next
start refuses to create an empty database where one was (``refuse_to_recreate``).

The same look also reads the file system: read-only or out of space turns /status red
with the reason before a write has to fail (``StoreHealth.watched``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from db.store_health import StoreHealth, WriteProblem

logger = logging.getLogger(__name__)

#: How often the file is looked at between jobs.
CHECK_INTERVAL_S = 2.0
#: Less free space than this on the database's file system reads as a full disk.
DISK_FULL_BYTES = 1 << 20
#: Beside the database, written by every migration: a start that finds it but not the
#: database knows the database was there and is gone, not new.
MARKER_SUFFIX = ".created"

OnGone = Callable[[str], Awaitable[None]]


def sqlite_file(database_url: str) -> Path | None:
    """The file of a SQLite URL; None for PostgreSQL and in-memory databases."""
    if not database_url.startswith("sqlite"):
        return None
    path = database_url.split(":///", 1)[-1].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def marker_of(path: Path) -> Path:
    return path.with_name(path.name + MARKER_SUFFIX)


class DatabaseVanished(RuntimeError):
    """The database file is missing where a migration once created it."""


def refuse_to_recreate(database_url: str) -> None:
    """Raises ``DatabaseVanished`` when the SQLite file is missing but its marker is
    there: an empty database made here would hide the loss (``stepan migrate`` makes
    one on purpose). A first start, with neither, goes on."""
    path = sqlite_file(database_url)
    if path is not None and not path.exists() and marker_of(path).exists():
        raise DatabaseVanished(
            f"the database file {path} is missing although it was created "
            f"({marker_of(path).name} is there): restore it from a backup, or run "
            "`stepan migrate` to start an empty one on purpose"
        )


def mark_created(database_url: str) -> None:
    """After a migration: the database at this path exists on purpose."""
    path = sqlite_file(database_url)
    if path is not None and path.exists():
        marker = marker_of(path)
        if not marker.exists():
            marker.write_text("created by a migration; see db/file_watch.py\n")


@dataclass(frozen=True, slots=True)
class FileIdentity:
    device: int
    inode: int

    @classmethod
    def of(cls, path: Path) -> FileIdentity:
        stat = path.stat()
        return cls(stat.st_dev, stat.st_ino)


class SqliteFileWatch:
    """Checks one SQLite file; built with the engine, run by the bot's start-up."""

    def __init__(self, path: Path, health: StoreHealth) -> None:
        self.path = path
        self._health = health
        self._identity: FileIdentity | None = None
        self._told = False
        self._on_gone: OnGone | None = None
        self.note_identity()

    @classmethod
    def for_url(cls, database_url: str, health: StoreHealth) -> SqliteFileWatch | None:
        path = sqlite_file(database_url)
        return None if path is None else cls(path, health)

    def note_identity(self) -> None:
        """The file as it is now is the one this process works on (once it exists)."""
        with contextlib.suppress(FileNotFoundError):
            self._identity = FileIdentity.of(self.path)

    def check(self) -> str | None:
        """Looks at the file now; returns why it is gone, None while it is there."""
        if self._health.gone is not None:
            return self._health.gone
        gone = self._gone()
        if gone is not None:
            self._health.mark_gone(gone)
            logger.error("database: %s; writes stopped until a restart", gone)
            return gone
        self._health.watched = self._file_system()
        return None

    async def run(self, on_gone: OnGone, interval_s: float = CHECK_INTERVAL_S) -> None:
        """Checks every ``interval_s`` until cancelled; ``on_gone`` once, at the first."""
        self._on_gone = on_gone
        while True:
            await self.tell()
            await asyncio.sleep(interval_s)

    async def tell(self) -> None:
        """Checks, and gives a store found gone to the callback once (operators told)."""
        gone = self.check()
        if gone is None or self._told or self._on_gone is None:
            return
        self._told = True
        try:
            await self._on_gone(gone)
        except Exception:
            logger.exception("database gone: operators could not be told")

    def _gone(self) -> str | None:
        try:
            now = FileIdentity.of(self.path)
        except FileNotFoundError:
            return f"the file {self.path} was deleted" if self._identity is not None else None
        except OSError as exc:
            logger.warning("database file unreadable: %s", exc)
            return None
        if self._identity is None:
            self._identity = now
            return None
        if now != self._identity:
            return f"the file {self.path} was replaced by another file"
        return None

    def _file_system(self) -> WriteProblem | None:
        try:
            space = os.statvfs(self.path.parent)
        except OSError:
            return None
        if space.f_flag & os.ST_RDONLY:
            return WriteProblem.READ_ONLY
        if space.f_bavail * space.f_frsize < DISK_FULL_BYTES:
            return WriteProblem.DISK_FULL
        return None
