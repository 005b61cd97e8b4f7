"""One Telegram message makes its journal card once (issue 26 point 5): the same
message handled again (its update redelivered after a crash between the card and the
end of the update) or twice at once gets the card it has, the same text and the same
draft id, and ``operation_drafts`` holds one row; the migration merges the copies
written before it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.wiring.factory import build_pipeline
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade
from db.models import FarmProfileRow, OperationDraftRow
from db.uow import Database
from pipeline.actions import JournalAction
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import build_memory
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming, Reply
from tests.conftest import make_settings

USER = "tg:826"
CHAT = 826
TEXT = "запиши полив 20 мм на полі 3 вчора"


def _message(message_id: int | None) -> Incoming:
    return Incoming(USER, CHAT, TEXT, uuid.uuid4().hex[:16], message_id=message_id)


def _draft_ids(reply: Reply) -> set[int]:
    return {
        button.action.draft_id
        for row in reply.buttons
        for button in row
        if isinstance(button.action, JournalAction)
    }


async def _drafts(factory: async_sessionmaker[AsyncSession]) -> int:
    async with factory() as session:
        count = await session.scalar(select(func.count()).select_from(OperationDraftRow))
        return int(count or 0)


async def test_the_same_message_twice_is_one_card(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await pipeline.handle_message(Incoming(USER, CHAT, "привіт", uuid.uuid4().hex[:16]))
    first = await pipeline.handle_message(_message(501))
    again = await pipeline.handle_message(_message(501))
    assert _draft_ids(first) and _draft_ids(again) == _draft_ids(first)
    assert again.text == first.text
    # Not «схоже, це вже записано»: the card is the message's own, not a repeat of it.
    assert again.buttons == first.buttons
    assert await _drafts(session_factory) == 1
    # Another message with the same words is another card (a repeat, as before).
    other = await pipeline.handle_message(_message(502))
    assert _draft_ids(other) != _draft_ids(first)
    assert await _drafts(session_factory) == 2


async def test_a_message_without_an_id_is_a_card_each_time(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    """The console chat has no message ids: nothing to tell two messages apart by."""
    await pipeline.handle_message(Incoming(USER, CHAT, "привіт", uuid.uuid4().hex[:16]))
    await pipeline.handle_message(_message(None))
    await pipeline.handle_message(_message(None))
    assert await _drafts(session_factory) == 2


async def test_a_written_card_redelivered_says_it_is_written(pipeline: Pipeline) -> None:
    await pipeline.handle_message(Incoming(USER, CHAT, "привіт", uuid.uuid4().hex[:16]))
    card = await pipeline.handle_message(_message(503))
    action = next(
        b.action for row in card.buttons for b in row if isinstance(b.action, JournalAction)
    )
    await pipeline.journal.decide(user_id=USER, action=action, lang="uk")
    again = await pipeline.handle_message(_message(503))
    assert not _draft_ids(again)
    assert "Уже записано" in again.text


@pytest.fixture
async def postgres_pipeline(
    migrated_postgres_url: str, catalog: Catalog, rules: Rulebook
) -> AsyncIterator[tuple[Pipeline, async_sessionmaker[AsyncSession]]]:
    engine = create_engine(migrated_postgres_url, pool_size=5, max_overflow=5)
    factory = create_session_factory(engine)
    db = Database(factory)
    async with httpx.AsyncClient() as http:
        memory = build_memory(db, MemoryServiceClient("http://127.0.0.1:9", http))
        settings = make_settings(migrated_postgres_url)
        yield build_pipeline(settings, db, catalog, memory=memory, rules=rules), factory
    await engine.dispose()


@pytest.mark.postgres
async def test_two_copies_at_once_are_one_card_postgres(
    postgres_pipeline: tuple[Pipeline, async_sessionmaker[AsyncSession]],
) -> None:
    pipeline, factory = postgres_pipeline
    await pipeline.handle_message(Incoming(USER, CHAT, "привіт", uuid.uuid4().hex[:16]))
    replies = await asyncio.gather(*(pipeline.handle_message(_message(601)) for _ in range(4)))
    ids = [_draft_ids(reply) for reply in replies]
    assert all(found == ids[0] for found in ids) and ids[0]
    assert await _drafts(factory) == 1


async def test_the_migration_keeps_the_first_card_of_a_message(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url, "0025_journal_revisions")
    engine = create_engine(url)
    created = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    try:
        # Core inserts of the columns given (with the models' defaults): later
        # migrations add columns (the weather's points) the schema at 0025 lacks.
        async with engine.begin() as connection:
            # The user row as the schema at 0025 has it (the model's own defaults
            # would name user_profiles.weather_warnings, added by 0036).
            await connection.execute(
                text(
                    "INSERT INTO user_profiles (user_id, schema_version, agent,"
                    " expertise_level, expertise_locked, preferred_language, preferred_style,"
                    " interaction_count, known_intents, context_notes, recent_topics, operator,"
                    " active) VALUES (:user, 1, 'agromatrix', 'novice', 0, 'uk',"
                    " 'conversational', 0, '[]', '[]', '[]', 0, 1)"
                ),
                {"user": USER},
            )
            farm = insert(FarmProfileRow.__table__).values(farm_id="farm:1", user_id=USER)
            await connection.execute(farm)
            for message in (7, 7, 7, 8, None, None):
                await connection.execute(
                    insert(OperationDraftRow.__table__).values(
                        user_id=USER,
                        farm_id="farm:1",
                        chat_id=CHAT,
                        source_message_id=message,
                        payload={},
                        status="draft",
                        created_at=created,
                    )
                )
    finally:
        await engine.dispose()
    await asyncio.to_thread(upgrade, url)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(
                text("SELECT id, source_message_id FROM operation_drafts ORDER BY id")
            )
            assert [tuple(row) for row in rows.all()] == [(1, 7), (4, 8), (5, None), (6, None)]
    finally:
        await engine.dispose()
