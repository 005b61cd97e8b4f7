"""Feedback, learnings and corrections through the pipeline on a real database."""

from __future__ import annotations

import uuid

from sqlalchemy import select

from db.models import CorrectionRow, FeedbackRow, LearningRow
from db.uow import Database
from pipeline.actions import CorrectionAction, FeedbackAction, FeedbackReasonAction
from pipeline.handle import Pipeline
from pipeline.intents import Intent
from pipeline.learning.config import LearningRules
from pipeline.learning.desk import correction_rest
from pipeline.learning.feedback import Learnings, prompt_block
from pipeline.learning.kinds import FeedbackReason, FeedbackVerdict
from pipeline.types import Incoming, Reply


def _in(text: str, user: str = "tg:42", *, operator: bool = False) -> Incoming:
    return Incoming(
        user_id=user,
        chat_id=42,
        text=text,
        trace_id=uuid.uuid4().hex[:16],
        first_name="Оксана",
        is_operator=operator,
    )


def _actions(reply: Reply) -> list[object]:
    return [button.action for row in reply.buttons for button in row]


async def _deep(pipeline: Pipeline, user: str = "tg:42") -> tuple[Incoming, Reply]:
    await pipeline.handle_message(_in("привіт", user))  # known user from now on
    incoming = _in("яка вологість ґрунту на полі 2 зараз?", user)
    return incoming, await pipeline.handle_message(incoming)


async def test_feedback_buttons_only_under_deep_answers(pipeline: Pipeline) -> None:
    incoming, deep = await _deep(pipeline)
    assert deep.mode == "deep"
    assert _actions(deep)[-3:] == [
        FeedbackAction(verdict, incoming.trace_id) for verdict in FeedbackVerdict
    ]
    light = await pipeline.handle_message(_in("дякую"))
    assert not any(isinstance(a, FeedbackAction) for a in _actions(light))
    # A journal card keeps only its own buttons.
    card = await pipeline.handle_message(_in("запиши полив 20 мм на полі 2 вчора"))
    assert card.buttons and not any(isinstance(a, FeedbackAction) for a in _actions(card))


async def test_a_double_tap_counts_once_and_down_asks_why(pipeline: Pipeline, db: Database) -> None:
    incoming, _ = await _deep(pipeline)
    press = _in("")
    first = await pipeline.handle_action(
        FeedbackAction(FeedbackVerdict.DOWN, incoming.trace_id), press
    )
    assert [type(a) for a in _actions(first)] == [FeedbackReasonAction] * 4
    again = await pipeline.handle_action(
        FeedbackAction(FeedbackVerdict.UP, incoming.trace_id), press
    )
    assert again.text == pipeline.catalog.text("uk", "learning.already")
    reason = FeedbackReasonAction(FeedbackReason.TOO_LONG, incoming.trace_id)
    await pipeline.handle_action(reason, press)
    await pipeline.handle_action(reason, press)
    async with db.read() as session:
        rows = (await session.scalars(select(FeedbackRow))).all()
        learnings = (await session.scalars(select(LearningRow))).all()
    assert [(r.verdict, r.reason, r.intent) for r in rows] == [("down", "too_long", "iot")]
    assert len(learnings) == 1 and "too long" in learnings[0].rule
    assert "яка вологість" not in learnings[0].rule  # never the farmer's words


async def test_nobody_rates_someone_elses_reply(pipeline: Pipeline, db: Database) -> None:
    incoming, _ = await _deep(pipeline)
    stranger = _in("", user="tg:99")
    reply = await pipeline.handle_action(
        FeedbackAction(FeedbackVerdict.DOWN, incoming.trace_id), stranger
    )
    assert reply.text == pipeline.catalog.text("uk", "actions.expired")
    forged = await pipeline.handle_action(FeedbackAction(FeedbackVerdict.UP, "0" * 16), _in(""))
    assert forged.text == pipeline.catalog.text("uk", "actions.expired")
    async with db.read() as session:
        assert (await session.scalars(select(FeedbackRow))).all() == []


def test_the_learnings_block_keeps_the_newest_within_the_limit() -> None:
    rules = [f"rule {n} " + "x" * 40 for n in range(100, 0, -1)]  # newest first
    block = prompt_block(rules, "LEARNINGS:", 200)
    lines = block.splitlines()
    assert lines[0] == "LEARNINGS:" and len(block) <= 200
    assert lines[1].startswith("- rule 100 ") and lines[-1].startswith(
        f"- rule {101 - (len(lines) - 1)} "
    )
    assert prompt_block([], "LEARNINGS:", 200) == ""


async def test_learnings_reach_the_block_newest_first(db: Database) -> None:
    rules = LearningRules.load()
    learnings = Learnings(db, rules)
    for n in range(60):
        await learnings.add("negative", "iot", f"learning number {n:02d} " + "y" * 30, None)
    block = learnings.block
    assert len(block) <= rules.prompt_chars
    assert block.splitlines()[1].startswith("- learning number 59")
    assert "learning number 00" not in block
    items = await learnings.items(3)
    assert [i.rule[:18] for i in items] == [
        "learning number 59",
        "learning number 58",
        "learning number 57",
    ]
    assert await learnings.delete(items[0].id)
    assert "learning number 59" not in learnings.block
    assert not await learnings.delete(items[0].id)


async def test_an_operator_corrects_a_reply_by_buttons(pipeline: Pipeline, db: Database) -> None:
    operator = _in("розкидали селітру на 9-му, по 120 кило", user="tg:7", operator=True)
    reply = await pipeline.handle_message(operator)
    assert CorrectionAction(operator.trace_id) in _actions(reply)
    farmer_reply = await pipeline.handle_message(_in("розкидали селітру на 9-му, по 120 кило"))
    assert not any(isinstance(a, CorrectionAction) for a in _actions(farmer_reply))
    menu = await pipeline.handle_action(CorrectionAction(operator.trace_id), operator)
    assert CorrectionAction(operator.trace_id, Intent.RECORDING) in _actions(menu)
    done = await pipeline.handle_action(
        CorrectionAction(operator.trace_id, Intent.RECORDING), operator
    )
    assert "запис операції" in done.text
    async with db.read() as session:
        row = (await session.scalars(select(CorrectionRow))).one()
    assert (row.source, row.text, row.mode, row.intent) == (
        "operator",
        "розкидали селітру на 9-му, по 120 кило",
        "deep",
        "recording",
    )
    assert row.crew == ["ops"]


async def test_a_farmer_is_offered_the_correction(pipeline: Pipeline, db: Database) -> None:
    await pipeline.handle_message(_in("привіт"))
    vague = await pipeline.handle_message(_in("ні, я хотів щось інше"))
    assert not any(isinstance(a, CorrectionAction) for a in _actions(vague))
    first = _in("розкидали селітру на 9-му, по 120 кило")
    await pipeline.handle_message(first)
    offer = await pipeline.handle_message(_in("ні, я хотів записати операцію"))
    actions = _actions(offer)
    assert actions == [CorrectionAction(first.trace_id, Intent.RECORDING)], offer.text
    await pipeline.handle_action(actions[0], _in(""))  # type: ignore[arg-type]
    async with db.read() as session:
        row = (await session.scalars(select(CorrectionRow))).one()
    assert (row.source, row.intent, row.text) == (
        "farmer",
        "recording",
        "розкидали селітру на 9-му, по 120 кило",
    )


def test_correction_cues() -> None:
    cues = LearningRules.load().correction_cues
    assert correction_rest("Ні, я хотів записати операцію!", cues) == "записати операцію"
    assert correction_rest("No, I meant a report", cues) == "a report"
    assert correction_rest("ні", cues) is None
    assert correction_rest("запиши полив", cues) is None
