"""What the learning tests share (test_profile_learning.py, test_simulated_month.py,
test_shortcuts.py, test_journal.py): a clock the test moves, memory services with the
outbox on, a farm's two fields, the ✅ of a journal card.

The fixtures here take a ``clock`` fixture the test module defines (its start time);
a module imports the ones it uses by name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.clock import Clock
from pipeline.memory import Memory, build_memory
from pipeline.memory.service.client import MemoryServiceClient
from pipeline.types import Reply


class MovingClock:
    """The pipeline's and the memory's clock; the test sets ``now``."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def pipeline_clock(clock: MovingClock) -> Clock:
    """The pipeline runs on the test's clock."""
    return clock


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def memory(db: Database, http: httpx.AsyncClient, clock: MovingClock) -> Memory:
    """Memory services with the outbox on, on the test's clock."""
    return outbox_memory(db, http, clock)


def outbox_memory(db: Database, http: httpx.AsyncClient, clock: MovingClock) -> Memory:
    """Memory services whose outbox is on: a client nobody calls (nothing flushes)
    makes every lesson queue the profile for the memory-service."""
    return build_memory(db, MemoryServiceClient("http://127.0.0.1:9", http), clock=clock)


async def add_fields(factory: async_sessionmaker[AsyncSession], user_id: str) -> str:
    """The farm's two fields, as onboarding or an operator's review names them."""
    async with factory() as session:
        farm = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == user_id))
        ).scalar_one()
        session.add_all(
            [
                FieldRow(farm_id=farm.farm_id, field_id="field:pivnichne", name="Північне"),
                FieldRow(farm_id=farm.farm_id, field_id="field:pole-3", name="Поле 3"),
            ]
        )
        await session.commit()
        return farm.farm_id


def write_button(reply: Reply) -> JournalAction | None:
    """The ✅ of a journal card, if the reply is one."""
    return next(
        (
            b.action
            for row in reply.buttons
            for b in row
            if isinstance(b.action, JournalAction) and b.action.verb is JournalVerb.WRITE
        ),
        None,
    )
