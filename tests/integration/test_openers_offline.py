"""Openers only where they help (issue 16 point 4), on the offline deep path: a name
before a reply of several lines, never before a single sentence, never twice in a row."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pipeline.handle import Pipeline
from pipeline.language.vocative import address
from pipeline.memory import Memory
from tests.integration import deep_world as world
from tests.integration.deep_world import say, seed_farm

#: The deep world's fixtures: no internet, the seeded day, the seeded farm.
no_internet, pipeline_clock, farm = world.no_internet, world.pipeline_clock, world.farm


def _openers(pipeline: Pipeline, name: str) -> list[str]:
    return [
        template.format(name=name)
        for style in ("conversational", "detailed")
        for template in pipeline.catalog.templates("uk", f"compose.opener.{style}")
    ]


def _opened(pipeline: Pipeline, text: str) -> bool:
    first = text.split("\n\n", 1)[0]
    # The opener addresses her in the vocative (issue 30): «Подивився, Оксано:».
    return first in _openers(pipeline, address("Оксана", "uk"))


@pytest.mark.usefixtures("farm")
async def test_a_long_reply_opens_and_the_next_one_does_not(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    plan = await say(pipeline, session_factory, "сплануй тиждень")
    assert len(plan.text.splitlines()) >= 4 and _opened(pipeline, plan.text)
    again = await say(pipeline, session_factory, "план/факт за квітень")
    assert len(again.text.splitlines()) >= 3 and not _opened(pipeline, again.text)


async def test_a_one_line_reply_has_no_opener(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await seed_farm(pipeline, memory, session_factory)
    await memory.editor.set_style("tg:500", "detailed")
    # The opener alone: a novice's explanation would make the reply two lines.
    assert await memory.editor.set_expertise("tg:500", "intermediate", by_operator=False)
    reply = await say(pipeline, session_factory, "яка температура повітря на полі 2")
    # Before issue 16: «Оксана, ось повна картина:\n\nПоказів датчиків поки немає.»
    assert reply.text == pipeline.catalog.text("uk", "compose.readings_none")
