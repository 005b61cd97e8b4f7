"""SQLite's WAL checkpoint, off the commit path.

By default SQLite checkpoints inside the commit that takes the WAL past 1,000 pages:
that message's commit copies the WAL back into the database file and waits for the
fsync (on a big file a 235-320 ms commit, issue 17). The bot's engine turns that off
(``wal_autocheckpoint=0``, db/engine.py ``checkpoint_by_job``) and this job does it
instead, every few seconds, on a connection of its own in a worker thread: a PASSIVE
checkpoint takes no writer lock, so conversations commit while it copies.

The WAL stays bounded: each run copies everything written since the last one (unless
a reader still holds an older snapshot: then the rest goes next time), the next writer
then starts the WAL from its beginning again, and ``journal_size_limit`` makes that
writer truncate the file to ``WAL_SIZE_LIMIT``. So the file holds at most what is
written between two runs, and at rest no more than the limit (docs/OPERATIONS.md).
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from db.file_watch import sqlite_file

#: The WAL file is cut back to this after a checkpoint (``journal_size_limit``).
WAL_SIZE_LIMIT = 64 * 1024 * 1024
#: How often the job runs (seconds); the WAL holds about this much of writing.
CHECKPOINT_EVERY_S = 10


@dataclass(frozen=True, slots=True)
class CheckpointResult:
    busy: bool  #: the checkpoint could not finish (a reader or writer was in the way)
    wal_frames: int  #: pages in the WAL
    checkpointed: int  #: of those, copied into the database file

    def describe(self) -> str:
        return f"checkpointed {self.checkpointed}/{self.wal_frames} pages" + (
            " (busy)" if self.busy else ""
        )


class WalCheckpointer:
    """PASSIVE checkpoints of one SQLite file from a short-lived connection of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_url(cls, database_url: str) -> WalCheckpointer | None:
        """A checkpointer for a SQLite file URL; None for PostgreSQL and in-memory."""
        path = sqlite_file(database_url)
        return None if path is None else cls(path)

    async def run(self) -> CheckpointResult:
        return await asyncio.to_thread(self.checkpoint)

    def checkpoint(self) -> CheckpointResult:
        # PASSIVE never waits on a lock, so no busy timeout is needed.
        # mode=rw: a file that is gone stays gone (an empty one would hide the loss).
        uri = f"file:{quote(str(self.path.resolve()))}?mode=rw"
        with closing(sqlite3.connect(uri, timeout=0, isolation_level=None, uri=True)) as conn:
            busy, frames, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return CheckpointResult(bool(busy), max(frames, 0), max(done, 0))
