"""PostgreSQL faults under the running bot's engine (bot.wiring.factory.build_core): a
restart mid-run is recovered without restarting Stepan, and a locked table costs
the farmer seconds, not the length of the lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from bot.wiring.factory import Core, build_core
from db.engine import create_engine
from pipeline.language.catalog import Catalog
from pipeline.types import Incoming
from tests.conftest import _admin, make_settings

USER = "tg:4040"


@pytest.fixture
async def core(migrated_postgres_url: str) -> AsyncIterator[Core]:
    core = build_core(make_settings(migrated_postgres_url))
    try:
        yield core
    finally:
        await core.close()


def _message(n: int, text: str = "привіт") -> Incoming:
    return Incoming(USER, 4040, text, f"trace-{n}", first_name="Оля")


async def _count(core: Core) -> int:
    async with core.db.read() as session:
        value = await session.scalar(
            text("SELECT interaction_count FROM user_profiles WHERE user_id = :u"), {"u": USER}
        )
    return int(value or 0)


async def test_a_restart_mid_run_is_recovered_without_restarting_stepan(
    core: Core, migrated_postgres_url: str, catalog: Catalog
) -> None:
    failed = catalog.text("uk", "errors.generic", code="trace-2"[:8])
    assert (await core.pipeline.handle_message(_message(1))).text != failed
    database = migrated_postgres_url.rsplit("/", 1)[1]

    # What a restart does to the pool: every server connection is gone.
    await _admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        f"WHERE datname = '{database}' AND pid <> pg_backend_pid()"
    )

    for n in range(2, 6):
        reply = await core.pipeline.handle_message(_message(n, "дякую"))
        assert "trace-" not in reply.text and reply.text != failed
    assert await _count(core) == 5  # every acknowledged message counted, none lost


async def test_a_locked_table_answers_within_seconds(
    core: Core, migrated_postgres_url: str, catalog: Catalog
) -> None:
    await core.pipeline.handle_message(_message(1))
    locker = create_engine(migrated_postgres_url)
    release = asyncio.Event()
    locked = asyncio.Event()

    async def hold_lock() -> None:
        async with locker.begin() as conn:
            await conn.execute(text("LOCK TABLE user_profiles IN ACCESS EXCLUSIVE MODE"))
            locked.set()
            await release.wait()

    holder = asyncio.create_task(hold_lock())
    try:
        await locked.wait()
        # The lock is held until the end of the test: without a lock timeout the
        # message would wait for it (the issue saw 39 s), and wait_for fails.
        reply = await asyncio.wait_for(core.pipeline.handle_message(_message(2)), timeout=30)
    finally:
        release.set()
        await holder
        await locker.dispose()
    assert reply.text  # an answer (an apology with a code), not silence
