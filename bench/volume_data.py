"""The databases of bench/volume.py: migrated with the project's own migrations, then
filled with bulk inserts into the project's tables (each value through its column
type's own bind processing, then ``executemany`` on SQLite, ``COPY`` on PostgreSQL).
A table's secondary indexes are dropped while it is loaded and created again after,
from the definitions the migrations made (the database's own catalog): inserting
millions of rows in random ``user_id``/``trace_id`` order into live B-trees thrashed
the page cache (5,000,000 interactions took over 27 minutes); sorting them once when
each index is built takes a few seconds.

Per user: a profile and a farm; interactions spread over the last 30 days, their
text kept only for the last 8 (older text was already cleared by earlier retention
runs, so one night's run clears one day, as in production); two operations per user;
readings for one farm in ten (96 each over the last two days, within thresholds);
one conversation summary ending 40 minutes ago (the deep conversations before it were
compacted by earlier ``conversation_close`` runs, every 10 minutes as in production, so
the run measured compacts the talks that fell silent since, not a month of backfill:
that first run took 78 s at 20,000 users and about 45 minutes at 100,000).
A fifth of the users have earned an upgrade the expertise sweep has not made yet.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Dialect, Table
from sqlalchemy.ext.asyncio import create_async_engine

from db.migrate import upgrade_async
from db.models import (
    ConversationSummaryRow,
    FarmProfileRow,
    InteractionRow,
    OperationRow,
    SensorReadingRow,
    UserProfileRow,
)
from pipeline.memory.profiles.rows import farm_columns, user_columns
from pipeline.profiles import FarmProfile, UserProfile

FIRST_TELEGRAM_ID = 5_000_000
BATCH = 20_000
#: The loading connection's page cache (SQLite) / index build memory (PostgreSQL).
LOAD_CACHE_KIB = 512 * 1024
#: Interactions are spread over this many days; text is kept for the last 8.
HISTORY_DAYS = 30
TEXT_KEPT_DAYS = 8
OPERATIONS_PER_USER = 2
IOT_FARM_SHARE = 10  #: one farm in this many has sensors
READINGS_PER_IOT_FARM = 96
#: Deep conversations ending before this long ago are already compacted.
COMPACTED_BEFORE = timedelta(minutes=40)
LIGHT_INTENTS = ("greeting", "thanks", "smalltalk")
WORK_INTENTS = ("planning", "recording", "iot", "analysis")


def user_id(n: int) -> str:
    return f"tg:{FIRST_TELEGRAM_ID + n}"


def chat_id(n: int) -> int:
    return FIRST_TELEGRAM_ID + n


@dataclass(frozen=True, slots=True)
class Sizes:
    users: int
    interactions: int

    @property
    def operations(self) -> int:
        return self.users * OPERATIONS_PER_USER

    @property
    def readings(self) -> int:
        return len(range(0, self.users, IOT_FARM_SHARE)) * READINGS_PER_IOT_FARM


async def build_database(url: str, sizes: Sizes, now: datetime, seed: int = 17) -> None:
    """Migrate ``url`` to head and fill it (the database must be empty)."""
    await upgrade_async(url)
    # Only for the dialect and its column types; the rows go in through the driver.
    engine = create_async_engine(url)
    rng = random.Random(seed)
    tables: list[tuple[Any, Iterator[dict[str, Any]]]] = [
        (UserProfileRow.__table__, _users(sizes, now)),
        (FarmProfileRow.__table__, _farms(sizes, now)),
        (InteractionRow.__table__, _interactions(sizes, now, rng)),
        (OperationRow.__table__, _operations(sizes, now)),
        (SensorReadingRow.__table__, _readings(sizes, now)),
        (ConversationSummaryRow.__table__, _summaries(sizes, now)),
    ]
    try:
        if engine.dialect.name == "sqlite":
            path = url.split(":///", 1)[-1]
            with closing(sqlite3.connect(path, isolation_level=None)) as conn:
                conn.execute("PRAGMA synchronous=OFF")
                conn.execute(f"PRAGMA cache_size=-{LOAD_CACHE_KIB}")
                for table, rows in tables:
                    indexes = _sqlite_indexes(conn, table.name)
                    for name, _ in indexes:
                        conn.execute(f'DROP INDEX "{name}"')
                    _load_sqlite(conn, engine.dialect, table, rows)
                    for _, sql in indexes:
                        conn.execute(sql)
                conn.execute("ANALYZE")
        else:
            async with engine.connect() as conn:
                raw = (await conn.get_raw_connection()).driver_connection
                assert raw is not None
                await raw.execute(f"SET maintenance_work_mem = '{LOAD_CACHE_KIB}kB'")
                for table, rows in tables:
                    indexes = await _postgres_indexes(raw, table.name)
                    for name, _ in indexes:
                        await raw.execute(f'DROP INDEX "{name}"')
                    await _load_postgres(raw, engine.dialect, table, rows)
                    for _, sql in indexes:
                        await raw.execute(sql)
                await raw.execute("ANALYZE")
    finally:
        await engine.dispose()


def _sqlite_indexes(conn: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    """(name, CREATE statement) of ``table``'s indexes made by CREATE INDEX (not the
    automatic ones behind a PRIMARY KEY or UNIQUE constraint, whose ``sql`` is NULL)."""
    return conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
        "AND sql IS NOT NULL",
        (table,),
    ).fetchall()


async def _postgres_indexes(raw: Any, table: str) -> list[tuple[str, str]]:
    """(name, CREATE statement) of ``table``'s indexes that back no constraint."""
    rows = await raw.fetch(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = $1 "
        "AND i.schemaname = current_schema() "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
        table,
    )
    return [(row[0], row[1]) for row in rows]


def _batches(
    dialect: Dialect, table: Table, rows: Iterator[dict[str, Any]]
) -> Iterator[tuple[list[str], list[tuple[Any, ...]]]]:
    """Rows as driver values (each column type's own bind processing), in batches;
    the columns are those of the first row."""
    first = next(rows, None)
    if first is None:
        return
    # Python-side scalar defaults (``default=True``) the ORM would fill in.
    defaults = {
        c.name: getattr(c.default, "arg", None)
        for c in table.columns
        if c.name not in first and c.default is not None and c.default.is_scalar
    }
    first = first | defaults
    names = list(first)
    processors = [table.c[name].type.bind_processor(dialect) for name in names]
    batch: list[tuple[Any, ...]] = []
    for row in itertools.chain([first], (defaults | r for r in rows)):
        batch.append(
            tuple(
                value if process is None or value is None else process(value)
                for process, value in zip(processors, (row[n] for n in names), strict=True)
            )
        )
        if len(batch) >= BATCH:
            yield names, batch
            batch = []
    if batch:
        yield names, batch


def _load_sqlite(
    conn: sqlite3.Connection, dialect: Dialect, table: Table, rows: Iterator[dict[str, Any]]
) -> None:
    for names, batch in _batches(dialect, table, rows):
        marks = ", ".join("?" for _ in names)
        conn.execute("BEGIN")
        conn.executemany(f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({marks})", batch)
        conn.execute("COMMIT")


async def _load_postgres(
    raw: Any, dialect: Dialect, table: Table, rows: Iterator[dict[str, Any]]
) -> None:
    for names, batch in _batches(dialect, table, rows):
        await raw.copy_records_to_table(table.name, records=batch, columns=names)


def _users(sizes: Sizes, now: datetime) -> Iterator[dict[str, Any]]:
    template = user_columns(UserProfile.default(user_id(0)))
    for n in range(sizes.users):
        upgradable = n % 5 == 0  # earned intermediate, still novice: the sweep's work
        row = dict(template)
        row.update(
            user_id=user_id(n),
            name=f"Фермер {n}",
            expertise_level="novice" if upgradable else "intermediate",
            interaction_count=12 + n % 20,
            known_intents=list(WORK_INTENTS[:2]) if upgradable else ["greeting"],
            last_seen=now - timedelta(hours=n % 700),
            updated_at=now - timedelta(hours=n % 700),
            farm_profile_ref=farm_of(n),
        )
        yield row


def farm_of(n: int) -> str:
    return f"farm-{FIRST_TELEGRAM_ID + n}"


def _farms(sizes: Sizes, now: datetime) -> Iterator[dict[str, Any]]:
    for n in range(sizes.users):
        farm = FarmProfile.default(user_id(n)).model_copy(
            update={"farm_id": farm_of(n), "farm_name": f"Ферма {n}", "updated_at": now}
        )
        row = farm_columns(farm)
        if n % IOT_FARM_SHARE == 0:
            row["iot_sensors"] = {"has_iot_integration": True, "sensor_types": ["soil_moisture"]}
        yield row


def _interactions(sizes: Sizes, now: datetime, rng: random.Random) -> Iterator[dict[str, Any]]:
    history = timedelta(days=HISTORY_DAYS).total_seconds()
    kept = timedelta(days=TEXT_KEPT_DAYS).total_seconds()
    # Oldest first, as a live table grows (ids follow time).
    for i in range(sizes.interactions):
        age = history * (1 - i / max(1, sizes.interactions))
        n = rng.randrange(sizes.users)
        light = rng.random() < 0.7
        yield {
            "trace_id": uuid.UUID(int=rng.getrandbits(128)).hex[:16],
            "user_id": user_id(n),
            "chat_id": chat_id(n),
            "mode": "light" if light else "deep",
            "intent": rng.choice(LIGHT_INTENTS if light else WORK_INTENTS),
            "crew": [] if light else ["ops"],
            "crew_size": 0 if light else 1,
            "confidence": 0.9,
            "reason": "rule",
            "latency_ms": 5.0 if light else 900.0,
            "text": "привіт, як справи" if age < kept else None,
            "created_at": now - timedelta(seconds=age),
        }


def _operations(sizes: Sizes, now: datetime) -> Iterator[dict[str, Any]]:
    for n in range(sizes.users):
        for k in range(OPERATIONS_PER_USER):
            yield {
                "farm_id": farm_of(n),
                "op_type": "sowing" if k == 0 else "fertilising",
                "field_id": "field-1",
                "crop_id": "crop:wheat",
                "quantity": 2.5,
                "unit": "t",
                "area_ha": 10.0,
                "op_date": date.fromordinal(now.date().toordinal() - (n + k) % 120),
                "status": "done",
                "author": user_id(n),
            }


def _readings(sizes: Sizes, now: datetime) -> Iterator[dict[str, Any]]:
    step = timedelta(days=2) / READINGS_PER_IOT_FARM
    for n in range(0, sizes.users, IOT_FARM_SHARE):
        for k in range(READINGS_PER_IOT_FARM):
            yield {
                "farm_id": farm_of(n),
                "field_id": "field-1",
                "sensor_id": f"probe-{n}",
                "sensor_type": "soil_moisture",
                "value": 35.0 + k % 5,
                "unit": "%",
                "measured_at": now - step * (READINGS_PER_IOT_FARM - k),
                "source": "api",
            }


def _summaries(sizes: Sizes, now: datetime) -> Iterator[dict[str, Any]]:
    end = now - COMPACTED_BEFORE
    for n in range(sizes.users):
        yield {
            "key": str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench:{user_id(n)}")),
            "user_id": user_id(n),
            "period_start": end - timedelta(minutes=10),
            "period_end": end,
            "text": "Планували роботи на тиждень.",
            "intents": ["planning"],
            "message_count": 3,
            "source": "extractive",
            "created_at": end,
        }
