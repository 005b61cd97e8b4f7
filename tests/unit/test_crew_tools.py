"""The crew's tools as an LLM sees them: arguments checked, the farm never taken from
the model, failures and hangs turned into a sentence; the crew's data files."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.uow import Database
from pipeline.crew.config import CrewSpec, Prompts
from pipeline.crew.context import RunContext
from pipeline.crew.crewai_glue import TOOL_FAILED, TOOL_TIMED_OUT, bind_tools
from pipeline.crew.tools import ARGS, FarmTools, ToolResult
from pipeline.crew.words import Words, field_in_text
from pipeline.farm.dictionary import DictionaryEntry
from pipeline.i18n import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.rulebook import Rulebook
from pipeline.types import CREW_NAMES

RULES = Rulebook.load()


def load_words() -> Words:
    return RULES.words


class RecordingTools(FarmTools):
    """Runs nothing: records what reached the tool after validation."""

    def __init__(self, behaviour: str = "ok") -> None:
        super().__init__(
            platform_probe=self._no_probe,
            words=RULES.words,
            dates=RULES.dates,
            units=RULES.units,
            sensors=RULES.sensors,
        )
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.behaviour = behaviour

    @staticmethod
    async def _no_probe(ctx: RunContext) -> list[Any]:
        return []

    async def run(self, name: str, ctx: RunContext, args: Mapping[str, Any]) -> ToolResult:
        parsed = ARGS[name].model_validate(dict(args))  # as FarmTools.run does
        if self.behaviour == "raise":
            raise RuntimeError("database down")
        if self.behaviour == "hang":
            await asyncio.sleep(5)
        self.seen.append((name, parsed.model_dump()))
        return ToolResult(name, f"{name} ok")


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
    tools = RecordingTools()
    assert await _call(tools, catalog, "planned_operations", days=3) == "planned_operations ok"
    assert tools.seen == [("planned_operations", {"days": 3})]


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
    tools = RecordingTools()
    answer = await _call(tools, catalog, name, **args)
    assert answer.startswith("Invalid arguments")
    assert tools.seen == []


async def test_a_failing_or_hanging_tool_becomes_a_sentence(catalog: Catalog) -> None:
    assert await _call(RecordingTools("raise"), catalog, "open_alerts") == TOOL_FAILED
    assert (
        await _call(RecordingTools("hang"), catalog, "open_alerts", timeout_s=0.1) == TOOL_TIMED_OUT
    )


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
