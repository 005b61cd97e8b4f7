"""SQLite's writer turns (db/turns.py): a job working in chunks lets a waiting
conversation in between two chunks; the expertise sweep never makes a message fall
back to a default profile. Orderings are asserted, never timings."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event, insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

from db.models import FarmProfileRow, UserProfileRow
from db.uow import Database
from pipeline.memory import Memory
from pipeline.memory.habits.sweep import SWEEP_CHUNK
from pipeline.memory.profiles.loading import Loaded
from pipeline.memory.profiles.rows import farm_columns, user_columns
from pipeline.profiles import FarmProfile, UserProfile


async def _until_someone_waits(db: Database) -> None:
    assert db.turns is not None
    for _ in range(1000):
        if db.turns.waiting:
            return
        await asyncio.sleep(0)
    raise AssertionError("nobody asked for a turn")


async def test_a_conversation_gets_in_between_two_chunks_of_a_job(db: Database) -> None:
    order: list[str] = []
    first_chunk = asyncio.Event()

    async def job() -> None:
        for n in range(3):
            async with db.write() as session:
                await session.execute(text("SELECT 1"))
                order.append(f"chunk {n}")
                if n == 0:
                    first_chunk.set()
                    await _until_someone_waits(db)  # the conversation queues meanwhile

    async def conversation() -> None:
        await first_chunk.wait()
        async with db.read() as session:
            await session.execute(text("SELECT 1"))
            order.append("conversation")

    await asyncio.gather(job(), conversation())
    # Without turns the job, asking again the moment it gave the connection back,
    # would take chunks 1 and 2 before the waiting conversation.
    assert order == ["chunk 0", "conversation", "chunk 1", "chunk 2"]


async def test_waiting_transactions_are_served_in_arrival_order(db: Database) -> None:
    order: list[str] = []
    release = asyncio.Event()

    async def holder() -> None:
        async with db.write():
            order.append("holder")
            await release.wait()

    async def later(name: str) -> None:
        async with db.write() as session:
            await session.execute(text("SELECT 1"))
            order.append(name)

    first = asyncio.create_task(holder())
    await asyncio.sleep(0)
    tasks = []
    for n in range(4):
        tasks.append(asyncio.create_task(later(f"t{n}")))
        await asyncio.sleep(0)  # t0 asks before t1, ...
    release.set()
    await asyncio.gather(first, *tasks)
    assert order == ["holder", "t0", "t1", "t2", "t3"]


async def test_a_nested_transaction_of_the_same_task_does_not_wait_on_itself(
    db: Database,
) -> None:
    assert db.turns is not None
    async with db.turns.turn(), db.turns.turn():
        pass  # would hang if the inner turn queued behind the outer one


async def _seed_candidates(db: Database, count: int) -> list[str]:
    """Users the sweep must look at (enough interactions, not expert); half of them
    earn an upgrade."""
    users, farms = [], []
    for n in range(count):
        user_id = f"tg:{100000 + n}"
        profile = UserProfile.default(user_id).model_copy(
            update={
                "expertise_level": "novice",
                "interaction_count": 12,
                "known_intents": ["planning", "recording"] if n % 2 else ["greeting"],
            }
        )
        users.append(user_columns(profile))
        farms.append(farm_columns(FarmProfile.default(user_id)))
    async with db.write() as session:
        await session.execute(insert(UserProfileRow), users)
        await session.execute(insert(FarmProfileRow), farms)
    return [u["user_id"] for u in users]


async def test_the_sweep_lets_a_message_in_between_its_chunks(
    db: Database, memory: Memory, engine: AsyncEngine
) -> None:
    users = await _seed_candidates(db, 2 * SWEEP_CHUNK + 10)  # three chunks
    began: list[str] = []
    messages: list[asyncio.Task[Loaded]] = []

    def on_begin(conn: Any) -> None:
        task = asyncio.current_task()
        began.append(task.get_name() if task is not None else "?")
        if began == ["sweep"]:  # a farmer writes while the first chunk runs
            load = memory.profiles.load(users[-1])
            messages.append(asyncio.get_running_loop().create_task(load, name="message"))

    event.listen(engine.sync_engine, "begin", on_begin)
    try:
        sweep = asyncio.create_task(memory.sweep.run(), name="sweep")
        upgraded = await sweep
        loaded = await messages[0]
    finally:
        event.remove(engine.sync_engine, "begin", on_begin)
    assert upgraded == (len(users)) // 2
    assert began[:3] == ["sweep", "message", "sweep"]
    # Three chunks of candidates, each read in one transaction and upgraded in another.
    assert began.count("sweep") == 6
    # The message read the farmer's real row, not a default stand-in.
    assert not loaded.degraded and loaded.known
    assert loaded.profile.interaction_count == 12
