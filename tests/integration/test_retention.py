"""Text retention (pipeline/privacy/retention.py): old raw text cleared in chunks of short
transactions through the partial index, metadata kept, handled updates forgotten, and
a conversation waiting for SQLite's writer gets in between two chunks."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from db.models import InteractionRow, UpdateInboxRow
from db.repositories import interactions
from db.uow import Database
from pipeline.privacy.retention import RAW_TEXT_RETENTION, TextRetention

NOW = datetime(2026, 11, 29, 3, 30, tzinfo=UTC)
OLD = NOW - RAW_TEXT_RETENTION - timedelta(hours=1)


def _interaction(n: int, at: datetime, text: str | None) -> InteractionRow:
    return InteractionRow(
        trace_id=f"t{n}", user_id=f"tg:{n % 3}", chat_id=n, mode="light", intent="greeting",
        crew=[], confidence=1.0, reason="r", latency_ms=1.0, text=text, created_at=at,
        update_id=500_000 + n,
    )  # fmt: skip


async def _seed(db: Database, old: int, fresh: int) -> None:
    async with db.write() as session:
        for n in range(old):
            session.add(_interaction(n, OLD - timedelta(minutes=n), f"старе {n}"))
        for n in range(old, old + fresh):
            session.add(_interaction(n, NOW - timedelta(days=1, minutes=n), f"свіже {n}"))
        # Cleared long ago: not touched again, not counted.
        session.add(_interaction(10_000, OLD - timedelta(days=30), None))


async def _texts(db: Database) -> dict[str, str | None]:
    async with db.read() as session:
        rows = await session.execute(select(InteractionRow.trace_id, InteractionRow.text))
        return {trace: text for trace, text in rows.all()}


async def test_old_text_is_cleared_in_chunks_and_metadata_stays(db: Database) -> None:
    await _seed(db, old=23, fresh=4)
    result = await TextRetention(db, clock=lambda: NOW, chunk=5).run()
    assert result.cleared == 23
    # 4 full chunks and a short one for the text, one for the inbox, one for the rest.
    assert result.transactions == 4 + 1 + 1 + 1
    texts = await _texts(db)
    assert {trace for trace, text in texts.items() if text is not None} == {
        "t23", "t24", "t25", "t26",
    }  # fmt: skip
    async with db.read() as session:
        intents = await session.scalars(select(InteractionRow.intent))
        assert list(intents) == ["greeting"] * 28
    again = await TextRetention(db, clock=lambda: NOW, chunk=5).run()
    assert (again.cleared, again.transactions) == (0, 3)


async def test_old_interactions_forget_their_update_id(db: Database) -> None:
    """After a week Telegram may reuse an update id; an old record must not make the
    new update look like a replay."""
    await _seed(db, old=3, fresh=2)
    await TextRetention(db, clock=lambda: NOW, chunk=5).run()
    async with db.read() as session:
        rows = await session.execute(select(InteractionRow.trace_id, InteractionRow.update_id))
        update_ids = {trace: update_id for trace, update_id in rows.all()}
    assert {trace: update_ids[trace] for trace in ("t0", "t1", "t2", "t3", "t4")} == {
        "t0": None, "t1": None, "t2": None, "t3": 500_003, "t4": 500_004,
    }  # fmt: skip


async def test_a_chunk_clears_the_oldest_first_and_at_most_its_size(db: Database) -> None:
    await _seed(db, old=6, fresh=1)
    async with db.write() as session:
        assert await interactions.clear_text_chunk(session, NOW - RAW_TEXT_RETENTION, 2) == 2
    texts = await _texts(db)
    # t5 and t4 were written longest ago (OLD - n minutes).
    assert texts["t5"] is None and texts["t4"] is None
    assert all(texts[f"t{n}"] is not None for n in range(4))


async def test_the_chunk_reads_the_partial_index(db: Database, engine: AsyncEngine) -> None:
    await _seed(db, old=3, fresh=1)
    seen: list[tuple[str, object]] = []

    def capture(_c: object, _cur: object, statement: str, params: object, *_: object) -> None:
        seen.append((statement, params))

    event.listen(engine.sync_engine, "before_cursor_execute", capture)
    try:
        async with db.write() as session:
            await interactions.clear_text_chunk(session, NOW - RAW_TEXT_RETENTION, 10)
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
    statement, params = next((s, p) for s, p in seen if s.startswith("UPDATE interactions"))
    async with db.read() as session:
        connection = await session.connection()
        plan = await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)  # type: ignore[arg-type]
        details = [row._mapping["detail"] for row in plan]
    assert "SEARCH interactions USING INDEX ix_interactions_text_kept (created_at<?)" in details
    assert not any(d.startswith("SCAN interactions") for d in details), details


async def test_handled_updates_are_forgotten_after_a_week_in_chunks(db: Database) -> None:
    async with db.write() as session:
        for update_id in range(1, 8):
            old = update_id <= 5
            session.add(
                UpdateInboxRow(
                    update_id=update_id,
                    payload=None,
                    status="done" if update_id != 3 else "handling",
                    received_at=OLD if old else NOW,
                    finished_at=(OLD if old else NOW) if update_id != 3 else None,
                )
            )
    result = await TextRetention(db, clock=lambda: NOW, chunk=2).run()
    assert result.updates == 4
    async with db.read() as session:
        kept = await session.scalars(select(UpdateInboxRow.update_id).order_by("update_id"))
        assert list(kept) == [3, 6, 7]  # one still being handled, two handled today


async def test_a_waiting_conversation_gets_in_between_two_chunks(db: Database) -> None:
    """SQLite's one connection: the conversation asks for it while the job runs and
    must not wait for the whole job (it sees old text still there)."""
    await _seed(db, old=60, fresh=0)
    retention = asyncio.create_task(TextRetention(db, clock=lambda: NOW, chunk=5).run())
    await asyncio.sleep(0)  # the job has started its first chunk

    async def conversation() -> int:
        async with db.write() as session:
            session.add(_interaction(20_000, NOW, "привіт"))
            left = await session.scalar(
                select(func.count())
                .select_from(InteractionRow)
                .where(InteractionRow.text.is_not(None), InteractionRow.created_at < OLD)
            )
            return int(left or 0)

    left = await conversation()
    result = await retention
    assert result.cleared == 60
    assert 0 < left < 60
