"""The deep path without an LLM (the default) on a real migrated SQLite database: each
kind of deep request does its job from the farm's own data, and nothing leaves the
machine. The seeded farm is in deep_world.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import AlertRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.admin.platform import LlmHealth
from pipeline.crew.composer import ComposerParts
from pipeline.crew.context import RunContext
from pipeline.crew.tools import Tool, ToolResult
from pipeline.crew.wiring import build_brains, standard_tools
from pipeline.deep import DeepTemplate
from pipeline.farm.reports import sensor_label
from pipeline.handle import Pipeline
from pipeline.language.texts import Texts
from pipeline.memory import Memory
from pipeline.rulebook import Rulebook
from pipeline.types import Reply
from tests.integration import deep_world as world
from tests.integration.deep_world import (
    PNG,
    USER,
    XLSX,
    moisture_on_field_two,
    planned_spraying,
    say,
    seed_farm,
)

#: The deep world's fixtures: no internet, the seeded day, the seeded farm.
no_internet, pipeline_clock, farm = world.no_internet, world.pipeline_clock, world.farm


def with_tools(
    pipeline: Pipeline, db: Database, memory: Memory, rules: Rulebook, **tools: Tool
) -> None:
    """Give the pipeline the offline deep path over the standard tools with the named
    ones replaced (a failing service, a probe)."""
    standard = standard_tools(db, memory.sync, rules=rules, health=LlmHealth(configured=False))
    brains = build_brains(
        pipeline.catalog,
        pipeline.journal,
        db,
        memory.sync,
        rules=rules,
        tools=standard.replacing(**tools),
    )
    pipeline.swap(deep=brains.deep)


# --- every deep request, offline -----------------------------------------------------------


async def test_offline_pipeline_uses_the_composer(pipeline: Pipeline) -> None:
    assert isinstance(pipeline.deep, DeepTemplate)
    assert isinstance(pipeline.deep.producer, ComposerParts)


async def test_greeting_never_touches_the_deep_path(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def boom(*args: object) -> Reply:
        raise AssertionError("the deep path ran for a greeting")

    monkeypatch.setattr(pipeline.deep, "answer", boom)
    reply = await say(pipeline, session_factory, "привіт")
    assert reply.mode == "light" and reply.crew == ()


async def test_recording_gives_a_consent_card(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "запиши полив 20 мм на Північному вчора")
    assert reply.intent == "recording" and reply.crew == ("ops",)
    assert reply.text.startswith("📝") and "20 мм" in reply.text
    card = reply.buttons[0][0].action
    assert isinstance(card, JournalAction)
    assert [b.action for b in reply.buttons[0]] == [
        JournalAction(verb, card.draft_id)
        for verb in (JournalVerb.WRITE, JournalVerb.EDIT, JournalVerb.CANCEL)
    ]


async def test_excel_report_for_october(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "звіт в excel за жовтень")
    assert reply.crew == ("spreadsheet",)
    assert reply.document is not None and reply.document.content.startswith(XLSX)
    assert reply.document.filename.endswith("2024-10-01_2024-10-31.xlsx")
    # The period as a farmer writes it, the year once; the count in words.
    ready = pipeline.catalog.text(
        "uk", "compose.report_ready", period="01.10–31.10.2024", operations="1 операція"
    )
    assert ready in reply.text


async def test_moisture_chart(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "графік вологості")
    assert reply.crew == ("iot",)
    assert reply.photo is not None and reply.photo.content.startswith(PNG)
    assert "Вологість ґрунту" in reply.text
    assert "08.05–14.05.2025" in reply.text  # the last 7 days by default
    assert reply.photo.filename == "stepan_soil-moisture_2025-05-08_2025-05-14.png"


async def test_a_chart_for_a_named_period_covers_that_period(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "графік вологості за 2 тижні")
    assert "01.05–14.05.2025" in reply.text and reply.photo is not None
    reply = await say(pipeline, session_factory, "графік вологості за квітень")
    # April has no readings: said so, for April, with no picture.
    assert reply.photo is None and "01.04–30.04.2025" in reply.text


async def test_latest_moisture_on_field_two(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "яка вологість на полі 2")
    assert reply.crew == ("iot",)
    assert moisture_on_field_two(pipeline.catalog) in reply.text  # under the 20 % threshold
    assert "31" not in reply.text  # only the newest value
    assert "Північне" not in reply.text  # only the field asked about


async def test_plan_vs_fact_for_april(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "план/факт за квітень")
    assert reply.crew == ("sustainability",)
    assert "01.04.2025–30.04.2025" in reply.text
    assert "Північне" in reply.text and "виконано 1 з 2" in reply.text


async def test_season_summary(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "підсумки сезону")
    assert reply.crew == ("sustainability",)
    assert "01.01.2025–31.12.2025" in reply.text and "20 мм" in reply.text


async def test_service_status(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "статус сервісів")
    assert reply.crew == ("platform",)
    # The farmer reads the services and their states in words (issue 16 point 3).
    t = pipeline.catalog.text
    db_line = t("uk", "compose.platform_item", name=t("uk", "status.service.database"), state="")
    assert db_line in reply.text and t("uk", "status.service.llm") in reply.text
    assert "database" not in reply.text and "llm" not in reply.text and " мс" not in reply.text


async def test_plan_the_week_with_iot(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert reply.crew == ("iot", "ops", "sustainability")
    assert planned_spraying(pipeline.catalog) in reply.text  # planned, in 7 days
    assert "30.06" not in reply.text  # planned, but later
    assert "Фаза сезону: сівба" in reply.text  # May, no phase in the profile
    assert "Відкриті тривоги" in reply.text and "Поле 2" in reply.text


async def test_open_alerts_are_on_the_farms_clock(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    """Both kinds of open alert give their start on the farm's clock (Europe/Kyiv,
    +03 in May), never UTC: the moisture breach from 06:00 UTC, a probe silent
    since 21:30 UTC the evening before (00:30 local, already the next day)."""
    async with session_factory() as session:
        session.add(
            AlertRow(
                farm_id=farm,
                field_id="field:pivnichne",
                sensor_type="soil_moisture",
                sensor_id="s-1",
                kind="silent",
                value=40.0,
                threshold=0.0,
                started_at=datetime(2025, 5, 13, 21, 30, tzinfo=UTC),
            )
        )
        await session.commit()
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    catalog = pipeline.catalog
    moisture = sensor_label(Texts(catalog, "uk"), "soil_moisture")
    breach = catalog.text(
        "uk",
        "compose.alert_below",
        field="Поле 2",
        sensor=moisture,
        value="17,5 %",
        threshold="20 %",
        since="14.05 09:00",
    )
    silent = catalog.text(
        "uk",
        "alerts.open_silent",
        field="Північне",
        sensor=moisture,
        probe="s-1",
        since="14.05 00:30",
    )
    assert breach in reply.text and silent in reply.text
    assert "UTC" not in reply.text


async def test_plan_the_week_without_iot_skips_sensors(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await seed_farm(pipeline, memory, session_factory, iot=False)
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert reply.crew == ("ops", "sustainability")
    assert planned_spraying(pipeline.catalog) in reply.text and "тривог" not in reply.text


async def test_aphids_are_answered_from_the_farms_crop_card(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    # The farm grows wheat (its journal dictionary): aphids on wheat, with the threshold
    # and the source, not a generic paragraph.
    reply = await say(pipeline, session_factory, "що робити з попелицею")
    assert reply.intent == "advice" and reply.crew == ()
    assert reply.text.startswith("Озима пшениця — шкідники")
    assert "попелиці" in reply.text and "5–10 шт. на стебло" in reply.text
    # Its source, short (the whole reference is a button away: test_advisor.py).
    assert "Джерело: Прогноз фітосанітарного стану" in reply.text


async def test_english_request_gets_an_english_report(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "excel report for october")
    assert reply.document is not None
    assert reply.text.startswith(("Here", "I took", "Here you go")) or "report for" in reply.text
    assert "Звіт" not in reply.text


async def test_sensor_question_without_iot_says_so(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await seed_farm(pipeline, memory, session_factory, iot=False)
    reply = await say(pipeline, session_factory, "яка вологість на полі 2")
    assert reply.crew == ()
    assert reply.text == pipeline.catalog.text("uk", "compose.no_iot")


async def test_a_failing_agent_leaves_the_others_and_names_what_is_missing(
    pipeline: Pipeline,
    db: Database,
    memory: Memory,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
    farm: str,
) -> None:
    async def broken(ctx: RunContext, args: object) -> ToolResult:
        raise RuntimeError("season service down")

    with_tools(pipeline, db, memory, rules, season_hints=broken)
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    assert planned_spraying(pipeline.catalog) in reply.text  # ops still answered
    assert "Відкриті тривоги" in reply.text  # and iot
    assert pipeline.catalog.text("uk", "compose.missing", parts="аналітика сезону") in reply.text
    assert "RuntimeError" not in reply.text and "Traceback" not in reply.text


async def test_brief_style_shortens_lists(
    pipeline: Pipeline, memory: Memory, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    await memory.editor.set_style(USER, "brief")
    reply = await say(pipeline, session_factory, "сплануй тиждень")
    opener = pipeline.catalog.text("uk", "compose.opener.conversational", name="Оксано")
    assert not reply.text.startswith(opener.split(",")[0])
