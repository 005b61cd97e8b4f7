"""The memory-service's dialog summaries (issue 9) against the fake that follows its
contract: sent, listed, deleted and purged by /forget, under the same status rules as
the profiles. Real HTTP on 127.0.0.1, a real migrated database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from db.uow import Database
from pipeline.memory import DialogSummary, Memory
from tests.fakes.memory_service import FakeMemoryService
from tests.integration import memory_world as world
from tests.integration.memory_world import (
    TEAM,
    Factory,
    MakeMemory,
    rows,
)

#: The memory-service world's fixtures: the fake, the clock, the client, the memory.
service, clock, http = world.service, world.clock, world.http
make_memory, memory = world.make_memory, world.memory


async def test_summaries_are_sent_listed_deleted_and_purged_by_forget(
    service: FakeMemoryService, memory: Memory, db: Database
) -> None:
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    summary = DialogSummary(
        start, start + timedelta(hours=1), "Полив на Північному", 6, ("irrigation",)
    )
    async with db.write() as session:
        memory.summaries.queue(session, "tg:1", summary, start)
        memory.summaries.queue(session, "tg:2", summary, start)
    assert (await memory.sync.flush()).sent == 2
    (stored,) = service.summaries_of("stepan:tg:1")
    assert (stored["team_id"], stored["agent_id"]) == (TEAM, "agromatrix")
    assert stored["summary_text"] == "Полив на Північному" and stored["message_count"] == 6

    recent = await memory.summaries.recent("tg:1")
    assert recent is not None and [s.text for s in recent] == ["Полив на Північному"]
    async with db.write() as session:
        memory.summaries.queue_delete(session, "tg:1", recent[0].id, start)
    await memory.sync.flush()
    assert service.summaries_of("stepan:tg:1") == []

    await memory.editor.forget("tg:2")
    await memory.sync.flush()
    assert service.summaries_of("stepan:tg:2") == []


async def test_summaries_follow_the_same_status_rules(
    service: FakeMemoryService, make_memory: MakeMemory, db: Database, session_factory: Factory
) -> None:
    memory = make_memory(secret="another-secret-another-secret-another")
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    async with db.write() as session:
        memory.summaries.queue(session, "tg:1", DialogSummary(start, start, "x"), start)
    await memory.sync.flush()
    (row,) = await rows(session_factory)
    assert row.state == "config_error" and service.summaries == {}
    assert await memory.summaries.recent("tg:1") is None  # refused: unknown, not empty
