"""The deep path's composed answer in each voice (issue 11 point 3), without an LLM,
on a seeded farm, for every deep intent: a novice reads each part's facts in plain
words and what its terms mean and why; an intermediate the parts as they are, opened
by style; an expert the facts alone (no opener, terse headers and list lines, no
explanations); an operator the expert's voice with the trace code, intent and crew
under it. The consent card itself reads the same for everyone."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.types import ClassifierContext, Incoming, Reply
from tests.integration import test_shortcuts as shared
from tests.integration.deep_world import USER, incoming
from tests.integration.learning_world import MovingClock

Factory = async_sessionmaker[AsyncSession]
LEVELS = ("novice", "intermediate", "expert")

#: A deep question per deep intent and kind of composed part, and the novice's
#: explanations it must carry (``level.novice.why.<name>``: a tool's part, or a term
#: of an agronomy card answer).
QUESTIONS = {
    "яка вологість на полі 2": ("latest_readings",),
    "які тривоги?": ("open_alerts", "latest_readings"),
    "графік вологості за тиждень": ("sensor_chart",),
    "план/факт за квітень": ("plan_vs_fact",),
    "підсумок сезону": ("season_summary",),
    "сплануй тиждень": ("planned_operations", "season_hints"),
    "статус сервісів": ("platform_status",),
    "звіт в excel за жовтень": ("operations_report",),
    "порадь, що робити з попелицею": ("knowledge.threshold", "knowledge.actives"),
    "норма висіву соняшнику": ("knowledge.rate", "knowledge.zone"),
}
#: The questions whose parts list items (a line each).
LISTED = frozenset(
    {"яка вологість на полі 2", "які тривоги?", "план/факт за квітень", "сплануй тиждень"}
)
#: What an expert reads instead of the reference wording, where the part has a list.
EXPERT_MARKS = (" · ", "/", "XLSX", "PNG", "Операцій:", "План:", "Покази (останні):", "Сервіси")


# The seeded farm on a clock the test moves, no internet (the shortcut tests' fixtures).
no_internet, clock, pipeline_clock = shared.no_internet, shared.clock, shared.pipeline_clock
farm = shared.deep


async def ask(
    pipeline: Pipeline,
    memory: Memory,
    clock: MovingClock,
    text: str,
    level: str,
    *,
    operator: bool = False,
) -> tuple[Reply, Incoming]:
    assert await memory.editor.set_expertise(USER, level, by_operator=True)  # type: ignore[arg-type]
    # Past the repeat shortcut and the conversation: every answer is composed afresh.
    clock.advance(minutes=31)
    message = incoming(text)
    if operator:
        message = replace(message, is_operator=True)
    return await pipeline.handle_message(message), message


def explanations(catalog: Catalog) -> set[str]:
    return {
        catalog.text("uk", key) for key in catalog.keys("uk") if key.startswith("level.novice.why.")
    }


@pytest.mark.parametrize("question", list(QUESTIONS))
async def test_each_deep_part_reads_differently_per_level(
    pipeline: Pipeline,
    memory: Memory,
    clock: MovingClock,
    catalog: Catalog,
    farm: object,
    question: str,
) -> None:
    novice, _ = await ask(pipeline, memory, clock, question, "novice")
    middle, _ = await ask(pipeline, memory, clock, question, "intermediate")
    expert, _ = await ask(pipeline, memory, clock, question, "expert")
    assert novice.mode == middle.mode == expert.mode == "deep"
    # The same question after a silence recalls the last talk (issue 11 point 5): the
    # voices are compared on the answer itself.
    novice, middle, expert = (answer_of(r.text, catalog) for r in (novice, middle, expert))
    assert len({novice, middle, expert}) == 3
    # A list's lines (readings, alerts, plans, plan/fact) are worded per level too.
    if question in LISTED:
        bullets = [
            {line for line in text.splitlines() if line.startswith("• ")}
            for text in (novice, middle, expert)
        ]
        assert all(bullets) and not (bullets[0] & bullets[1] or bullets[1] & bullets[2]), bullets

    why = {tool: catalog.text("uk", f"level.novice.why.{tool}") for tool in QUESTIONS[question]}
    for tool, line in why.items():
        assert novice.count(line) == 1, tool
    every_why = explanations(catalog)
    assert not any(line in middle for line in every_why)
    assert not any(line in expert for line in every_why)
    # An expert reads no less than the numbers, in fewer words.
    assert len(expert) < len(middle) < len(novice)

    # A long intermediate reply opens by style (pipeline/crew/openers.py: several
    # lines, not twice in a row); the expert's never does: it starts with the facts.
    openers = [
        o.format(name="Оксано") for o in catalog.templates("uk", "compose.opener.conversational")
    ]
    if question == "сплануй тиждень":
        assert middle.split("\n", 1)[0] in openers
    assert not any(expert.startswith(o) for o in openers)
    # What the expert reads instead is the terse catalog line where there is one.
    terse = [
        catalog.text("uk", key)
        for key in catalog.keys("uk")
        if key.startswith("level.expert.compose.") and "{" not in catalog.text("uk", key)
    ]
    headers = ("Покази (останні):", "План/факт ", "План ", "Сервіси:", "Збої:", "Звіт у Excel за ")
    assert (
        any(line in expert for line in terse)
        or any(h in expert for h in headers)
        or any(mark in expert for mark in EXPERT_MARKS)
        or "Чому так:" in middle  # a card answer: the expert's has no why
    ), expert


def answer_of(text: str, catalog: Catalog) -> str:
    """The reply without the recalled talk's paragraph (when there is one)."""
    recalls = tuple(
        catalog.text("uk", key, summary="").rstrip()
        for key in ("compose.recall", "level.expert.compose.recall")
    )
    return "\n\n".join(p for p in text.split("\n\n") if not p.startswith(recalls))


async def test_the_consent_card_is_the_same_for_everyone_a_novice_reads_what_it_is(
    pipeline: Pipeline, memory: Memory, clock: MovingClock, catalog: Catalog, farm: object
) -> None:
    question = "запиши полив 20 мм на Північному вчора"
    replies = [(await ask(pipeline, memory, clock, question, level))[0] for level in LEVELS]
    cards = [reply.text.split("\n\n", 1)[0] for reply in replies]
    # What is written must be exactly what the farmer saw, whoever they are.
    assert cards[0] == cards[1] == cards[2] and cards[0].startswith(
        catalog.text("uk", "journal.card_one")
    )
    why = catalog.text("uk", "level.novice.why.journal_card")
    assert why in replies[0].text
    assert why not in replies[1].text and why not in replies[2].text


async def test_an_operator_reads_the_technical_voice_with_the_trace(
    pipeline: Pipeline, memory: Memory, clock: MovingClock, catalog: Catalog, farm: object
) -> None:
    expert, _ = await ask(pipeline, memory, clock, "яка вологість на полі 2", "expert")
    reply, message = await ask(
        pipeline, memory, clock, "яка вологість на полі 2", "novice", operator=True
    )
    body, footer = reply.text.rsplit("\n\n", 1)
    # The same subject after the silence: first where that talk stopped (issue 11
    # point 5), in the expert's voice too.
    note, body = body.split("\n\n", 1)
    assert note.startswith(catalog.text("uk", "level.expert.compose.recall", summary=""))
    assert body == expert.text  # the expert's voice, whatever the operator's own level
    assert footer == catalog.text(
        "uk",
        "level.operator_footer",
        code=message.trace_id[:8],
        intent="iot",
        mode="deep",
        crew="iot",
        reason="rule:iot score=2",
    )
    # Light replies too; a farmer never sees the footer.
    operator_hello = replace(incoming("дякую"), is_operator=True)
    thanks = await pipeline.handle_message(operator_hello)
    assert thanks.text == "\n\n".join(
        (
            catalog.text("uk", "level.expert.light.thanks"),
            catalog.text(
                "uk",
                "level.operator_footer",
                code=operator_hello.trace_id[:8],
                intent="thanks",
                mode="light",
                crew="-",
                reason=thanks_reason(pipeline, "дякую"),
            ),
        )
    )
    farmer = await pipeline.handle_message(incoming("дякую"))
    assert "⚙️" not in farmer.text


def thanks_reason(pipeline: Pipeline, text: str) -> str:
    return pipeline.classifier.classify(text, ClassifierContext()).reason


async def test_no_iot_is_terse_for_an_expert_and_explained_for_a_novice(
    pipeline: Pipeline, memory: Memory, clock: MovingClock, catalog: Catalog
) -> None:
    await pipeline.handle_message(incoming("привіт"))
    novice, _ = await ask(pipeline, memory, clock, "яка вологість на полі 2", "novice")
    expert, _ = await ask(pipeline, memory, clock, "яка вологість на полі 2", "expert")
    assert catalog.text("uk", "compose.no_iot") in novice.text
    # The expert's ask recalls the novice's talk on the same subject (issue 11 point 5).
    note, answer = expert.text.split("\n\n")
    assert note.startswith(catalog.text("uk", "level.expert.compose.recall", summary=""))
    assert answer == catalog.text("uk", "level.expert.compose.no_iot")


async def test_without_a_farm_a_novice_reads_so_once_without_explanations(
    pipeline: Pipeline, catalog: Catalog
) -> None:
    """A new user (a novice) with no farm yet asks for a plan: the agents that need a
    farm find none, and the reply says so once; the explanation of data there is none
    of stays out."""
    reply = await pipeline.handle_message(incoming("сплануй тиждень"))
    assert reply.mode == "deep" and len(reply.crew) >= 2
    no_farm = catalog.text("uk", "compose.no_farm")
    assert reply.text.count(no_farm) == 1
    # What planned jobs are is not explained where there are none to show; the
    # season's hints (they need no farm) still are.
    assert catalog.text("uk", "level.novice.why.planned_operations") not in reply.text
    assert catalog.text("uk", "level.novice.why.season_hints") in reply.text
