"""Expertise both ways (issue 11 point 2, seed section 6): a novice (onboarding's
answer) is moved up by the rule at the right counts (on the spot and by the sweep), an
operator's level is locked until the operator unlocks it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import UserProfileRow
from db.uow import Database
from pipeline.memory import InteractionRecord, Memory, build_memory
from pipeline.types import DepthDecision

T0 = datetime(2026, 4, 1, 7, 0, tzinfo=UTC)
USER = "tg:808"
Factory = async_sessionmaker[AsyncSession]


def _memory(db: Database) -> Memory:
    return build_memory(db, clock=lambda: T0)


async def _say(memory: Memory, intents: list[str]) -> None:
    for n, intent in enumerate(intents):
        await memory.interactions.record(
            InteractionRecord(
                user_id=USER,
                chat_id=808,
                trace_id=uuid.uuid4().hex[:16],
                text="…",
                decision=DepthDecision("deep", intent, (), 0.9, "test"),  # type: ignore[arg-type]
                crew=(),
                latency_ms=1.0,
                at=T0 + timedelta(minutes=n),
                name=None,
                language="uk",
            )
        )


async def _level(memory: Memory) -> tuple[str, bool, int]:
    profile = (await memory.profiles.load(USER)).profile
    return profile.expertise_level, profile.expertise_locked, profile.interaction_count


async def test_a_new_user_starts_novice_and_the_rule_moves_them_on(db: Database) -> None:
    """No onboarding answer: the seed's starting level, unlocked, and the upgrade rule
    applies on the spot (issue 11 point 2)."""
    memory = _memory(db)
    await _say(memory, ["greeting"])
    assert await _level(memory) == ("novice", False, 1)
    await _say(memory, ["recording", "planning", *["thanks"] * 7])
    assert await _level(memory) == ("intermediate", False, 10)


async def test_a_novice_steps_up_at_ten_then_thirty(db: Database) -> None:
    memory = _memory(db)
    await _say(memory, ["greeting"])
    # Onboarding's «Як давно ви займаєтесь агрономією?» answered «менше року».
    assert await memory.editor.set_expertise(USER, "novice", by_operator=False)
    assert await _level(memory) == ("novice", False, 1)
    # Two distinct work intents, 9 interactions: not yet.
    await _say(memory, ["planning", "recording", *["thanks"] * 6])
    assert await _level(memory) == ("novice", False, 9)
    await _say(memory, ["thanks"])
    assert await _level(memory) == ("intermediate", False, 10)
    # Technical intents (sensors, analysis) and 30 interactions: expert, not before.
    await _say(memory, ["iot", "analysis", *["thanks"] * 17])
    assert await _level(memory) == ("intermediate", False, 29)
    await _say(memory, ["thanks"])
    assert await _level(memory) == ("expert", False, 30)


async def test_only_planning_and_chat_stay_novice(db: Database) -> None:
    memory = _memory(db)
    await _say(memory, ["greeting"])
    assert await memory.editor.set_expertise(USER, "novice", by_operator=False)
    await _say(memory, ["planning", "thanks", "greeting"] * 9 + ["planning", "thanks"])
    assert await _level(memory) == ("novice", False, 30)


async def test_the_operators_level_holds_until_unlocked_then_the_rule_applies(
    db: Database,
) -> None:
    memory = _memory(db)
    await _say(memory, ["greeting"])
    assert await memory.editor.set_expertise(USER, "novice", by_operator=True)
    await _say(memory, ["iot", "analysis", "planning"] * 12)
    assert await _level(memory) == ("novice", True, 37)
    assert await memory.sweep.run() == 0
    # The farmer's own request does not move a locked level.
    assert not await memory.editor.set_expertise(USER, "expert", by_operator=False)
    assert await memory.editor.unlock_expertise(USER)
    # Unlocked: the rule applies at once (37 interactions, technical intents).
    assert await _level(memory) == ("expert", False, 37)


async def test_the_sweep_moves_what_a_rule_change_allows(
    db: Database, session_factory: Factory
) -> None:
    memory = _memory(db)
    await _say(memory, ["greeting"])
    async with session_factory() as session:
        # As after an import or a rule change: the counts are there, the level is not.
        await session.execute(
            update(UserProfileRow)
            .where(UserProfileRow.user_id == USER)
            .values(
                expertise_level="novice",
                interaction_count=15,
                known_intents=["planning", "recording"],
            )
        )
        await session.commit()
    memory.cache.invalidate(USER)
    assert await memory.sweep.run() == 1
    assert await _level(memory) == ("intermediate", False, 15)


async def test_a_farmer_may_ask_for_another_level_while_unlocked(db: Database) -> None:
    memory = _memory(db)
    await _say(memory, ["greeting"])
    assert await memory.editor.set_expertise(USER, "expert", by_operator=False)
    assert await _level(memory) == ("expert", False, 1)
