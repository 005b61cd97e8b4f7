"""Agronomy questions through ``handle_message`` on a migrated database: the answer
uses the farm's region, its latest soil temperature, today's date, its fields' areas
and the conversation's crop, at the farmer's level."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from db.models import FarmProfileRow, FieldRow, SensorReadingRow
from db.uow import Database
from pipeline.actions import ItemAction, RegionAction, SourceAction
from pipeline.clock import Clock
from pipeline.handle import Pipeline
from pipeline.intents import Intent
from pipeline.memory import Memory
from pipeline.profiles import Expertise
from pipeline.types import Incoming, Reply, Shown

USER = "tg:710"
MAY_5 = datetime(2025, 5, 5, 8, 0, tzinfo=UTC)  # inside maize's Forest-Steppe window


@pytest.fixture
def pipeline_clock() -> Clock:
    """The pipeline lives on 5 May: inside maize's Forest-Steppe sowing window."""
    return lambda: MAY_5


def incoming(text: str = "", user: str = USER) -> Incoming:
    return Incoming(user_id=user, chat_id=710, text=text, trace_id=uuid.uuid4().hex[:16])


async def say(pipeline: Pipeline, text: str) -> Reply:
    return await pipeline.handle_message(incoming(text))


async def farm(
    pipeline: Pipeline,
    db: Database,
    memory: Memory,
    *,
    region: str | None = "poltava",
    soil: float | None = None,
    level: Expertise = "intermediate",
) -> None:
    await say(pipeline, "привіт")
    async with db.write() as session:
        row = (
            await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == USER))
        ).scalar_one()
        row.region = region
        session.add(FieldRow(farm_id=row.farm_id, field_id="field:n", name="Північне", area_ha=12))
        if soil is not None:
            session.add(
                SensorReadingRow(
                    farm_id=row.farm_id,
                    sensor_id="probe-1",
                    sensor_type="soil_temperature",
                    value=soil,
                    unit="°C",
                    measured_at=MAY_5 - timedelta(hours=1),
                    source="api",
                )
            )
    await memory.editor.set_expertise(USER, level, by_operator=True)


@pytest.mark.parametrize(
    ("soil", "shown", "verdict"), [(6.5, "6,5 °C", "Ні, ще зарано"), (11.0, "11 °C", "Так")]
)
async def test_can_i_sow_today_compares_the_farms_soil_and_date(
    pipeline: Pipeline,
    db: Database,
    memory: Memory,
    soil: float,
    shown: str,
    verdict: str,
) -> None:
    await farm(pipeline, db, memory, soil=soil)
    reply = await say(pipeline, "чи можна сьогодні сіяти кукурудзу?")
    assert reply.intent == Intent.ADVICE
    lines = reply.text.splitlines()
    assert lines[1].startswith(verdict)
    assert "5 травня" in reply.text and "25 квітня – 10 травня" in reply.text
    assert f"Ґрунт: {shown}" in reply.text and "8 °C" in reply.text
    assert "Джерело:" in reply.text


async def test_sowing_window_is_the_farms_region(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory)
    reply = await say(pipeline, "коли сіяти озиму пшеницю?")
    assert "Полтавська область, Лісостеп" in reply.text
    assert "15 вересня – 5 жовтня" in reply.text and "Полісся" not in reply.text


async def test_without_a_region_the_zones_and_one_question(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory, region=None)
    reply = await say(pipeline, "коли сіяти озиму пшеницю?")
    assert all(zone in reply.text for zone in ("Полісся", "Лісостеп", "Степ"))
    assert reply.text.count(pipeline.catalog.text("uk", "knowledge.ask_region")) == 1


async def test_the_conversation_carries_the_crop_and_the_field_scales_the_rate(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory)
    first = await say(pipeline, "норма висіву соняшнику")
    assert "50–60 тис. насінин/га" in first.text
    scaled = await say(pipeline, "скільки насіння на поле Північне?")
    assert scaled.intent == Intent.ADVICE
    assert "Північне" in scaled.text and "600–720 тис. насінин" in scaled.text
    depth = await say(pipeline, "а на яку глибину?")
    assert depth.text.startswith("Соняшник — глибина") and "4–6 см" in depth.text


async def test_a_novice_gets_the_why_an_expert_the_numbers(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory, level="novice")
    novice = await say(pipeline, "норма висіву соняшнику")
    assert "Чому так:" in novice.text and "втрати на сходах" in novice.text
    await memory.editor.set_expertise(USER, "expert", by_operator=True)
    expert = await say(pipeline, "норма висіву соняшнику")
    assert "Чому так:" not in expert.text and "50–60 тис. насінин/га" in expert.text


async def test_a_crop_without_cards_is_not_answered_with_another(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory)
    reply = await say(pipeline, "коли сіяти льон?")
    assert reply.intent == Intent.ADVICE
    assert "агроном" in reply.text and "квітня" not in reply.text and "травня" not in reply.text


async def test_an_operator_reads_a_card_answer_in_the_technical_voice(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    """Operators get the terse voice (issue 11 point 3), whatever their own level: the
    numbers, no why and no explanations of terms."""
    await farm(pipeline, db, memory, level="novice")

    def operator_says(text: str) -> Incoming:
        trace = uuid.uuid4().hex[:16]
        return Incoming(user_id=USER, chat_id=710, text=text, trace_id=trace, is_operator=True)

    await pipeline.handle_message(operator_says("дякую"))  # the profile mirrors the role
    reply = await pipeline.handle_message(operator_says("норма висіву соняшнику"))
    assert reply.intent == Intent.ADVICE and "50–60 тис. насінин/га" in reply.text
    assert "Чому так:" not in reply.text and "💡" not in reply.text


async def test_a_region_said_in_passing_counts_and_one_tap_keeps_it(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    """Issue 25 point 4: «у нас Житомирщина», then «коли в нас садять картоплю?» is
    answered for Zhytomyr oblast (not all three zones and «У якій ви області?»), and
    the farmer is asked once, with one button, whether to keep it."""
    await farm(pipeline, db, memory, region=None)
    heard = await say(pipeline, "у нас Житомирщина")
    catalog = pipeline.catalog
    region = catalog.text("uk", "region.heard", region="Житомирська область")
    assert heard.text == region
    (keep,) = [b.action for row in heard.buttons for b in row]
    assert keep == RegionAction("zhytomyr")
    answer = await say(pipeline, "коли в нас садять картоплю?")
    assert answer.intent == Intent.ADVICE
    assert "Житомирська область, Полісся" in answer.text
    assert catalog.text("uk", "knowledge.ask_region") not in answer.text
    assert RegionAction("zhytomyr") in [b.action for row in answer.buttons for b in row]
    pressed = await pipeline.handle_action(keep, incoming())
    assert pressed.shown is Shown.POPUP and "Житомирська область" in pressed.text
    async with db.read() as session:
        stored = await session.scalar(
            select(FarmProfileRow.region).where(FarmProfileRow.user_id == USER)
        )
    assert stored == "zhytomyr"
    # Kept: no more offers, and later questions use it however long after.
    again = await say(pipeline, "коли сіяти озиму пшеницю?")
    assert "Житомирська область" in again.text
    assert RegionAction("zhytomyr") not in [b.action for row in again.buttons for b in row]


async def test_a_forged_region_button_changes_nothing(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    await farm(pipeline, db, memory, region=None)
    reply = await pipeline.handle_action(RegionAction("atlantis"), incoming())
    assert reply.text == pipeline.catalog.text("uk", "actions.expired")
    async with db.read() as session:
        stored = await session.scalar(
            select(FarmProfileRow.region).where(FarmProfileRow.user_id == USER)
        )
    assert stored is None


async def test_a_follow_up_keeps_the_topic_and_changes_the_crop(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    """«а для сої?» after a sunflower seeding-rate question asks soybean's rate."""
    await farm(pipeline, db, memory)
    await say(pipeline, "норма висіву соняшнику")
    soy = await say(pipeline, "а для сої?")
    assert soy.intent == Intent.ADVICE
    assert soy.text.startswith("Соя — норма висіву")
    # Without the conversation, the same words ask nothing Stepan can answer.
    alone = await pipeline.handle_message(incoming("а для сої?", user="tg:711"))
    assert alone.intent != Intent.ADVICE


async def test_one_named_disease_then_a_tap_on_another_of_its_card(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    """Issue 25 point 6: «септоріоз на пшениці» answers septoria alone; the card's
    other diseases are a button each, and a press answers that one alone."""
    await farm(pipeline, db, memory)
    reply = await say(pipeline, "септоріоз на пшениці що робити")
    assert "Септоріоз листя" in reply.text and "• Бура листкова іржа" not in reply.text
    pressed = {b.text: b.action for row in reply.buttons for b in row}
    assert pressed["Бура листкова іржа"] == ItemAction("winter-wheat.diseases", 2)
    assert ItemAction("winter-wheat.diseases", 1) not in pressed.values()
    rust = await pipeline.handle_action(pressed["Бура листкова іржа"], incoming())
    assert rust.text.startswith("Озима пшениця — хвороби\n• Бура листкова іржа")
    assert "• Септоріоз листя" not in rust.text and "Також буває: " in rust.text
    assert ItemAction("winter-wheat.diseases", 1) in [b.action for r in rust.buttons for b in r]
    forged = await pipeline.handle_action(ItemAction("winter-wheat.diseases", 9), incoming())
    assert forged.text == pipeline.catalog.text("uk", "actions.expired")


async def test_the_source_is_a_short_line_and_its_whole_reference_a_tap_away(
    pipeline: Pipeline, db: Database, memory: Memory
) -> None:
    """Issue 30 point 6: the answer ends with a source line of about 80 characters at
    most; «📚 Джерело» shows the whole reference."""
    await farm(pipeline, db, memory)
    reply = await say(pipeline, "коли сіяти кукурудзу")
    [line] = [line for line in reply.text.splitlines() if line.startswith("Джерело:")]
    assert len(line) <= 80
    [source] = [
        b.action for row in reply.buttons for b in row if isinstance(b.action, SourceAction)
    ]
    whole = await pipeline.handle_action(source, incoming())
    assert whole.text.startswith("Джерело: «") and len(whole.text) > len(line)
    assert whole.text.split(",")[0] != line.split(",")[0]  # the title in full
    forged = await pipeline.handle_action(SourceAction(("nothing_here",)), incoming())
    assert forged.text == pipeline.catalog.text("uk", "actions.expired")
