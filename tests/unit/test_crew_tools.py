"""The crew's tools as an LLM sees them: arguments checked, the farm never taken from
the model, failures and hangs turned into a sentence; the crew's data files."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.uow import Database
from pipeline.crew.config import CrewSpec, Prompts
from pipeline.crew.context import RunContext
from pipeline.crew.crewai_glue import TOOL_FAILED, TOOL_TIMED_OUT, bind_tools
from pipeline.crew.tools import ARGS, FarmTools, Tool, ToolResult
from pipeline.crew.words import Words, field_in_text
from pipeline.farm.dictionary import DictionaryEntry
from pipeline.language.catalog import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.types import CREW_NAMES
from tests.shared import rulebook

RULES = rulebook()


def load_words() -> Words:
    return RULES.words


class Recorder:
    """Tools that run nothing: each records what reached it after FarmTools' check."""

    def __init__(self, behaviour: str = "ok") -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.behaviour = behaviour
        self.tools = FarmTools(
            {name: self._tool(name) for name in ARGS}, words=RULES.words, dates=RULES.dates
        )

    def _tool(self, name: str) -> Tool:
        async def record(ctx: RunContext, args: BaseModel) -> ToolResult:
            if self.behaviour == "raise":
                raise RuntimeError("database down")
            if self.behaviour == "hang":
                await asyncio.sleep(5)
            self.seen.append((name, args.model_dump()))
            return ToolResult(name, f"{name} ok")

        return record


def _ctx(catalog: Catalog) -> RunContext:
    return RunContext(
        db=Database(async_sessionmaker(class_=AsyncSession)),  # unbound: no tool may use it
        farm_id="farm:from-the-runner",
        user_id="tg:1",
        text="сплануй тиждень",
        lang="uk",
        now=datetime(2025, 5, 14, tzinfo=UTC),
        profile=UserProfile(user_id="tg:1"),
        farm=FarmProfile(user_id="tg:1"),
        catalog=catalog,
        vocabulary=RULES.vocabulary,
    )


async def _call(
    tools: FarmTools, catalog: Catalog, name: str, timeout_s: float = 2.0, **args: Any
) -> str:
    crew = CrewSpec.load()
    bound = bind_tools(
        "ops",
        (name,),
        crew.tool_descriptions,
        tools,
        _ctx(catalog),
        asyncio.get_running_loop(),
        timeout_s,
    )
    # CrewAI calls tools from its worker thread; so do we.
    return await asyncio.to_thread(lambda: bound[0]._run(**args))


async def test_valid_arguments_reach_the_tool(catalog: Catalog) -> None:
    recorder = Recorder()
    answer = await _call(recorder.tools, catalog, "planned_operations", days=3)
    assert answer == "planned_operations ok"
    assert recorder.seen == [("planned_operations", {"days": 3})]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("planned_operations", {"days": 500}),
        ("planned_operations", {"days": -1}),
        ("planned_operations", {"farm_id": "farm:someone-else"}),
        ("latest_readings", {"field": "x" * 500}),
        ("operations_report", {"period": "за жовтень", "user_id": "tg:2"}),
        ("open_alerts", {"farm_id": "farm:other"}),
    ],
)
async def test_untrusted_arguments_are_refused(
    catalog: Catalog, name: str, args: dict[str, Any]
) -> None:
    recorder = Recorder()
    answer = await _call(recorder.tools, catalog, name, **args)
    assert answer.startswith("Invalid arguments")
    assert recorder.seen == []


async def test_a_failing_or_hanging_tool_becomes_a_sentence(catalog: Catalog) -> None:
    assert await _call(Recorder("raise").tools, catalog, "open_alerts") == TOOL_FAILED
    hanging = Recorder("hang").tools
    assert await _call(hanging, catalog, "open_alerts", timeout_s=0.1) == TOOL_TIMED_OUT


def test_argument_models() -> None:
    with pytest.raises(ValidationError):
        ARGS["sensor_chart"].model_validate({"days": 367})
    assert ARGS["sensor_chart"].model_validate({}).model_dump() == {
        "sensor_type": "soil_moisture",
        "days": 7,
        "field": "",
        "period": "",
    }
    # The period may be the farmer's whole message: a long one is still an argument.
    long = "графік вологості за жовтень " + "дуже " * 200
    assert ARGS["sensor_chart"].model_validate({"period": long}).period == long.strip()


def test_crew_data_files() -> None:
    crew = CrewSpec.load()
    assert set(crew.agents) == set(CREW_NAMES)
    for spec in crew.agents.values():
        assert spec.tools and all(tool in ARGS for tool in spec.tools)
    assert crew.limits.max_iter <= 5 and crew.limits.retries == 2
    prompts = Prompts.load()
    assert "{response}" in prompts.reflection_user["uk"]
    assert "{prefix}" in prompts.light["en"] and "{template}" in prompts.light["uk"]


@pytest.mark.parametrize(
    ("text", "sensor", "chart"),
    [
        ("графік вологості", "soil_moisture", True),
        ("покажи графіки температури ґрунту", "soil_temperature", True),
        ("яка вологість повітря", "air_humidity", False),
        ("show soil moisture chart", "soil_moisture", True),
        ("какая влажность на поле 2", "soil_moisture", False),
        ("сплануй тиждень", None, False),
    ],
)
def test_words(text: str, sensor: str | None, chart: bool) -> None:
    words = load_words()
    assert words.sensor_type(text) == sensor
    assert words.wants_chart(text) is chart


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("що робити з попелицею", "aphids"),
        ("тля на пшенице что делать", "aphids"),
        ("what to do with aphids", "aphids"),
        ("порадь щось від фітофторозу", "fungal"),
        ("коли сіяти кукурудзу", "sowing_time"),
        ("яка вологість на полі 2", None),
    ],
)
def test_advice_topics(text: str, topic: str | None) -> None:
    found = load_words().advice_topic(text)
    assert (found.name if found else None) == topic


def test_field_in_text() -> None:
    dictionary = RULES.vocabulary.dictionary(
        [
            DictionaryEntry("field", "field:pivnichne", "Північне", ()),
            DictionaryEntry("field", "field:pole-2", "Поле 2", ()),
        ]
    )
    for text, expected in (
        ("яка вологість на полі 2", "field:pole-2"),
        ("графік по Північному", "field:pivnichne"),
        ("яка вологість", None),
    ):
        entry = field_in_text(text, dictionary)
        assert (entry.canonical_id if entry else None) == expected


def test_season_calendar() -> None:
    words = load_words()
    assert words.phase_for_month(5) == "sowing"
    assert words.phase_for_month(11, "south") == "sowing"


def test_the_tool_set_is_checked_against_the_argument_models() -> None:
    """A tool without an argument model, or a model without a tool, fails at start-up."""
    tools = Recorder().tools.tools
    without = {name: tool for name, tool in tools.items() if name != "open_alerts"}
    with pytest.raises(ValueError, match="open_alerts"):
        FarmTools(without, words=RULES.words, dates=RULES.dates)
    with pytest.raises(ValueError, match="weather"):
        FarmTools({**tools, "weather": tools["open_alerts"]}, words=RULES.words, dates=RULES.dates)
    with pytest.raises(ValueError, match="weather"):
        Recorder().tools.replacing(weather=tools["open_alerts"])
