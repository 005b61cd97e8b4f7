"""A card waiting in a live database when the bot is upgraded: its draft was stored
before the draft was a typed model (schema version 1, no ``version`` key), and it
still counts as a repeat, is pressed and written once, and is stored back in the
current schema."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow, OperationDraftRow, OperationRow
from pipeline.actions import JournalAction, JournalVerb
from pipeline.farm.journal.draft import SCHEMA_VERSION
from pipeline.farm.journal.service import Journal
from pipeline.handle import Pipeline
from pipeline.types import Incoming

USER = "tg:78"
NOW = datetime(2025, 5, 11, 23, 30, tzinfo=UTC)
#: Captured from the journal before the model: two operations, none written yet.
STORED: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "unit" / "data" / "draft-payloads-v1.json").read_text(
        encoding="utf-8"
    )
)["cards"][0]


@pytest.fixture
async def waiting(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> tuple[Journal, int]:
    """The journal, and the id of a card stored by the journal before the upgrade."""
    await pipeline.handle_message(Incoming(USER, 78, "привіт", uuid.uuid4().hex[:16]))
    async with session_factory() as session:
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        session.add(FieldRow(farm_id=farm.farm_id, field_id="field:pole-3", name="Поле 3"))
        row = OperationDraftRow(
            user_id=USER,
            farm_id=farm.farm_id,
            chat_id=78,
            source_message_id=100,
            payload=STORED["payload"],
            status="draft",
            created_at=NOW,
        )
        session.add(row)
        await session.commit()
        return pipeline.journal, row.id


async def test_a_card_stored_before_the_upgrade_is_written_once(
    waiting: tuple[Journal, int], session_factory: async_sessionmaker[AsyncSession]
) -> None:
    journal, draft_id = waiting
    action = JournalAction(JournalVerb.WRITE, draft_id)
    decision = await journal.decide(user_id=USER, action=action, lang="uk", now=NOW)
    assert decision.written == 2
    again = await journal.decide(user_id=USER, action=action, lang="uk", now=NOW)
    assert again.written == 0
    async with session_factory() as session:
        count = await session.scalar(select(func.count()).select_from(OperationRow))
        row = await session.get(OperationDraftRow, draft_id)
    assert count == 2
    assert row is not None and row.status == "written"
    assert row.payload["version"] == SCHEMA_VERSION
    assert all(op["written"] for op in row.payload["ops"])


async def test_a_card_stored_before_the_upgrade_still_counts_for_repeats(
    waiting: tuple[Journal, int],
) -> None:
    journal, _ = waiting
    text = STORED["payload"]["ops"][0]["message"]
    proposal = await journal.propose(
        user_id=USER,
        chat_id=78,
        message_id=101,
        text=text,
        lang="uk",
        now=NOW + timedelta(minutes=1),
    )
    assert proposal.reply is not None
    actions = [button.action for row in proposal.reply.buttons for button in row]
    verbs = {action.verb for action in actions if isinstance(action, JournalAction)}
    assert JournalVerb.AGAIN in verbs and JournalVerb.WRITE not in verbs
