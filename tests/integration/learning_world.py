"""What the learning tests share (test_profile_learning.py, test_simulated_month.py):
a clock the test moves, memory services with the outbox on, a farm's two fields,
the ✅ of a journal card."""

from __future__ import annotations

from datetime import datetime

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import FarmProfileRow, FieldRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.memory import Memory, build_memory
from pipeline.memory.client import MemoryServiceClient
from pipeline.types import Reply


class MovingClock:
    """The pipeline's and the memory's clock; the test sets ``now``."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


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
