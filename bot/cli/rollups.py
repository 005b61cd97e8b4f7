"""`stepan rollups [--farm ID]`: rebuild the hourly sensor rollups (``sensor_hours``)
from the stored readings. The ingest keeps them itself; this is for readings that
arrived around it: stored by an instance still running the code before migration
0014 during a rolling upgrade (docs/DEPLOY.md), or loaded in bulk straight into
``sensor_readings``. Safe while instances ingest (``sensor_rollups.rebuild``)."""

from __future__ import annotations

from typing import TextIO

from db.engine import create_engine
from db.repositories import sensor_rollups
from db.uow import Database


async def rebuild_rollups(database_url: str, farm_id: str | None, out: TextIO) -> int:
    engine = create_engine(database_url)
    try:
        async with Database.of(engine).write() as session:
            rows = await sensor_rollups.rebuild(session, farm_id)
    finally:
        await engine.dispose()
    scope = f"farm {farm_id}" if farm_id else "every farm"
    print(f"stepan: {rows} hourly sensor rollup rows rebuilt ({scope})", file=out)
    return 0
