"""With an LLM configured, the retrieved cards and the farm's context are the prompt's
only sources; a reply that cites none of them is not trusted (scripted LLM at CrewAI's
BaseLLM boundary, a real migrated database)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from db.models import FarmProfileRow, FieldRow
from db.uow import Database
from pipeline.agronomy import AdviceRequest, Advisor
from pipeline.agronomy.grounded import GroundedWriter
from pipeline.crew.llm import LlmClient, LlmHandle
from pipeline.crew.pool import WorkerPool
from pipeline.knowledge import Composer
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.rulebook import Rulebook
from tests.fakes.llm import ScriptedLLM, scripted

USER = "tg:920"
NOW = datetime(2025, 5, 5, 8, 0, tzinfo=UTC)


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool(1)
    yield workers
    workers.shutdown()


async def advisor_with(
    llm: ScriptedLLM,
    db: Database,
    memory: Memory,
    rules: Rulebook,
    catalog: Catalog,
    pool: WorkerPool,
) -> Advisor:
    farm_id = await memory.editor.ensure_farm(USER)
    async with db.write() as session:
        row = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.farm_id == farm_id))
        ).scalar_one()
        row.region = "poltava"
        session.add(FieldRow(farm_id=row.farm_id, field_id="field:n", name="Північне", area_ha=12))
    client = LlmClient(LlmHandle.of(llm), pool, retries=0)
    kb = rules.knowledge
    writer = GroundedWriter(client, rules.prompts, catalog, kb.crop_names)
    return Advisor(kb, Composer(kb, catalog, rules.vocabulary), db, writer=writer)


def request(text: str) -> AdviceRequest:
    return AdviceRequest(
        USER, text, "uk", UserProfile.default(USER), FarmProfile.default(USER), NOW
    )


async def test_the_cards_and_the_farm_are_the_prompts_only_sources(
    db: Database, memory: Memory, rules: Rulebook, catalog: Catalog, pool: WorkerPool
) -> None:
    llm = scripted(replies={"": "Для Лісостепу сійте 50–60 тис. насінин на гектар [S1]."})
    advisor = await advisor_with(llm, db, memory, rules, catalog, pool)
    reply = await advisor.answer(request("норма висіву соняшнику на поле Північне"))
    [call] = llm.calls
    assert "ЛИШЕ наведеними джерелами" in call.system
    # The card: its values per zone, its text and its source, marked [S1].
    assert "[S1] Соняшник норма висіву" in call.last
    assert "Лісостеп: 50–60 тис. насінин/га" in call.last and "Степ: 40–50" in call.last
    assert "Лихочвора" in call.last
    # The farm: its region, zone and field.
    assert "Полтавська область" in call.last and "zone=forest_steppe" in call.last
    assert "Північне 12 ha" in call.last
    # The model's words, then Stepan's own source line.
    assert reply.text.startswith("Для Лісостепу сійте 50–60 тис. насінин на гектар [S1].")
    assert reply.text.splitlines()[-1].startswith("Джерело:")


@pytest.mark.parametrize(
    "answer",
    [
        "Сійте 80 тис. насінин на гектар.",  # no source cited: invented
        "Сійте 80 тис. насінин на гектар [S7].",  # a source it was not given
    ],
)
async def test_an_answer_without_a_given_source_falls_back_to_the_card(
    db: Database, memory: Memory, rules: Rulebook, catalog: Catalog, pool: WorkerPool, answer: str
) -> None:
    llm = scripted(replies={"": answer})
    advisor = await advisor_with(llm, db, memory, rules, catalog, pool)
    reply = await advisor.answer(request("норма висіву соняшнику"))
    assert llm.call_count == 1
    assert "80 тис" not in reply.text
    assert (
        reply.text.startswith("Соняшник — норма висіву") and "50–60 тис. насінин/га" in reply.text
    )


async def test_no_card_no_llm_call(
    db: Database, memory: Memory, rules: Rulebook, catalog: Catalog, pool: WorkerPool
) -> None:
    llm = scripted(replies={"": "Льон сійте 20 квітня [S1]."})
    advisor = await advisor_with(llm, db, memory, rules, catalog, pool)
    reply = await advisor.answer(request("коли сіяти льон?"))
    assert llm.call_count == 0 and "квітня" not in reply.text
