"""A pipeline as the bot builds it, without an LLM, on a fresh migrated SQLite file:
what the benches that talk to Stepan in-process share (bench/agronomy.py,
bench/journal_talk.py)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bot.config import AgxSettings, Settings, StepanSettings
from bot.wiring.factory import build_pipeline
from db.engine import create_engine
from db.migrate import upgrade_async
from db.uow import Database
from pipeline.clock import Clock
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook


@dataclass(frozen=True, slots=True)
class Offline:
    pipeline: Pipeline
    db: Database


@contextlib.asynccontextmanager
async def offline_pipeline(
    rules: Rulebook, catalog: Catalog, clock: Clock, name: str = "bench.db"
) -> AsyncIterator[Offline]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / name}"
        await upgrade_async(url)
        engine = create_engine(url)
        db = Database.of(engine)
        settings = Settings(
            stepan=StepanSettings(_env_file=None, database_url=url),  # type: ignore[call-arg]
            agx=AgxSettings(_env_file=None),  # type: ignore[call-arg]
        )
        pipeline = build_pipeline(settings, db, catalog, rules=rules, clock=clock)
        try:
            yield Offline(pipeline, db)
        finally:
            # The group-committed interactions first, then the connections.
            await pipeline.parts.interactions.drain()
            await engine.dispose()
