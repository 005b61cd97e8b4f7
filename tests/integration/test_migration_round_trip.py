"""A downgrade and upgrade keep a farm's data (SQLite, foreign keys on).

A migration that changes ``farm_profiles`` or ``user_profiles`` in batch mode ("move
and copy") drops the table and re-creates it; with ``PRAGMA foreign_keys=ON``
(db/engine.py) dropping it deletes every row of it first, and ``ON DELETE CASCADE``
takes the farms and each farm's fields, crops, operations and readings along (the
downgrades of 0006, 0007 and 0011 did). The stairway test (test_migrations.py) walks
an empty database and cannot see that; this one walks a seeded one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text

from db.engine import create_engine
from db.migrate import downgrade, upgrade
from db.uow import Database
from tests.query_plans_seed import seed

#: The farm's child tables since 0003_farm_data, all ON DELETE CASCADE (and the farm
#: itself, a child of user_profiles).
CHILDREN = ("fields", "crops", "operations", "sensor_readings", "dictionary_terms")


async def _counts(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return {
                table: int(
                    (await connection.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one()
                )
                for table in ("farm_profiles", *CHILDREN)
            }
    finally:
        await engine.dispose()


async def test_a_round_trip_below_every_farm_profiles_change_keeps_child_rows(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url)
    engine = create_engine(url)
    try:
        await seed(Database.of(engine))
    finally:
        await engine.dispose()
    seeded = await _counts(url)
    assert all(seeded.values()), seeded  # every table holds a row to lose
    # Below 0011 (farm_profiles.region), then 0007 (user_profiles.remote_merge) and
    # 0006 (farm_profiles.timezone), and back up.
    for revision in ("0010_stats_indexes", "0005_learning"):
        await asyncio.to_thread(downgrade, url, revision)
        assert await _counts(url) == seeded, revision
    await asyncio.to_thread(upgrade, url)
    assert await _counts(url) == seeded
