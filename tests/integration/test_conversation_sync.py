"""Conversation summaries reach the memory-service's dialog summaries (issue 9's
client) and leave it again: one deleted by Stepan's own key, all of them by /forget,
the folded ones by the weekly job. Real HTTP against the fake service; the LLM
summary is used only when it is 3-5 plain lines."""

from __future__ import annotations

import functools
import uuid
from datetime import UTC, datetime, timedelta

from db.engine import create_engine
from db.models import AnswerCacheRow, InteractionRow
from db.repositories import recall as repo
from db.uow import Database
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory, build_memory
from pipeline.recall.wiring import build_recall
from pipeline.rulebook import Rulebook
from tests.fakes.memory_service import FakeMemoryService
from tests.integration import memory_world as world

# The memory-service fixtures of the protocol tests: the fake over real HTTP and the
# memory services talking to it.
service, clock, http = world.service, world.clock, world.http
make_memory, memory = world.make_memory, world.memory

USER = "tg:77"
START = datetime(2026, 5, 4, 7, 0, tzinfo=UTC)


class Completer:
    """A TextCompleter answering with a fixed text (or raising)."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str]] = []

    async def complete(self, system: str, user: str, *, timeout_s: float) -> str:
        self.calls.append((system, user))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


async def talk(db: Database, *texts_at: tuple[str, str, int]) -> None:
    """Deep interactions of USER: (text, intent, minutes after START)."""
    async with db.write() as session:
        for text, intent, minutes in texts_at:
            session.add(
                InteractionRow(
                    trace_id=uuid.uuid4().hex[:16],
                    user_id=USER,
                    chat_id=77,
                    mode="deep",
                    intent=intent,
                    crew=["iot"],
                    confidence=1.0,
                    reason="rule",
                    latency_ms=1.0,
                    text=text,
                    created_at=START + timedelta(minutes=minutes),
                )
            )


def at(minutes: int) -> datetime:
    return START + timedelta(minutes=minutes)


async def test_summaries_are_copied_and_deleted_by_stepans_key(
    service: FakeMemoryService,
    memory: Memory,
    db: Database,
    rules: Rulebook,
    catalog: Catalog,
) -> None:
    await talk(db, ("яка вологість на полі 2", "iot", 0), ("план/факт за квітень", "analysis", 5))
    now = at(60)
    recall = build_recall(rules, catalog, db, memory, None, clock=lambda: now)
    assert await recall.conversations.close_idle() == 2
    await memory.sync.flush()
    stored = service.summaries_of(f"stepan:{USER}")
    assert len(stored) == 2
    assert {s["message_count"] for s in stored} == {1}
    assert all(s["summary_json"]["stepan_key"] for s in stored)

    first, second = await recall.conversations.window(USER)
    assert await recall.conversations.delete(USER, first.id)
    await memory.sync.flush()
    (left,) = service.summaries_of(f"stepan:{USER}")
    assert left["summary_text"] == second.text

    await memory.editor.forget(USER)
    await memory.sync.flush()
    assert service.summaries_of(f"stepan:{USER}") == []


async def test_an_llm_summary_is_kept_only_when_it_is_three_to_five_lines(
    memory: Memory, db: Database, rules: Rulebook, catalog: Catalog
) -> None:
    await talk(db, ("яка вологість на полі 2", "iot", 0))
    good = Completer("Питали вологість на Поле 2.\nПоказ 17,5 %, нижче порогу.\nРішень немає.")
    recall = build_recall(rules, catalog, db, memory, good, clock=lambda: at(40))
    assert await recall.conversations.close_idle() == 1
    (view,) = await recall.conversations.window(USER)
    assert view.source == "llm" and view.text.splitlines()[1] == "Показ 17,5 %, нижче порогу."
    system, user = good.calls[0]
    assert "Теми: дані датчиків" in system  # the extracted facts ground the model
    assert user == "яка вологість на полі 2"

    bad: tuple[str | Exception, ...] = (
        '{"summary": "json"}',
        "one line only",
        RuntimeError("model down"),
    )
    for n, answer in enumerate(bad, start=1):
        minutes = 100 * n
        await talk(db, ("план/факт за квітень", "analysis", minutes))
        fallback = Completer(answer)
        later = functools.partial(at, minutes + 40)
        recall = build_recall(rules, catalog, db, memory, fallback, clock=later)
        assert await recall.conversations.close_idle() == 1 and fallback.calls
        newest, *_ = await recall.conversations.window(USER)
        assert newest.source == "extractive"
        assert newest.text.startswith(f"04.05, {at(minutes) + timedelta(hours=3):%H:%M}–")


async def test_the_recall_tables_work_on_postgresql(
    migrated_postgres_url: str, rules: Rulebook, catalog: Catalog
) -> None:
    """Compaction, the window, the fold into context notes, deleting one summary and
    the remembered answers, on PostgreSQL (the other tests run on SQLite)."""
    engine = create_engine(migrated_postgres_url)
    try:
        db = Database.of(engine)
        memory = build_memory(db)
        await memory.editor.update_user(USER, name="Оксана")
        window, notes = rules.recall.conversation.window, rules.recall.conversation.notes_max
        subjects = (("яка вологість на полі 2", "iot"), ("план/факт за квітень", "analysis"))
        total = window + 2
        await talk(db, *((*subjects[n % 2], n) for n in range(total)))
        recall = build_recall(rules, catalog, db, memory, None, clock=lambda: at(total + 40))
        assert await recall.conversations.close_idle() == total
        assert len(await recall.conversations.window(USER)) == window
        assert await recall.conversations.fold() == 2
        user = (await memory.profiles.load(USER)).profile
        assert len(user.context_notes) == min(2, notes)
        newest, *_ = await recall.conversations.window(USER)
        assert await recall.conversations.delete(USER, newest.id)
        assert len(await recall.conversations.window(USER)) == window - 1
        async with db.write() as session:
            row = AnswerCacheRow(user_id=USER, slot="repeat", intent="iot", subject="2 волог",
                                 trace_id="t1", text="x", created_at=at(0))  # fmt: skip
            await repo.keep_answer(session, row)
        async with db.write() as session:
            again = AnswerCacheRow(user_id=USER, slot="repeat", intent="iot", subject="3 волог",
                                   trace_id="t2", text="y", created_at=at(1))  # fmt: skip
            await repo.keep_answer(session, again)
        async with db.read() as session:
            kept = await repo.answer(session, USER, "repeat")
            assert kept is not None and (kept.subject, kept.text) == ("3 волог", "y")
        await memory.editor.forget(USER)
        assert await recall.conversations.window(USER) == []
    finally:
        await engine.dispose()
