"""The nightly quality job on a seeded database: weak intents, verified proposals
stored and sent to every operator, and an approval that changes routing at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from db.models import CorrectionRow, FeedbackRow, InteractionRow, ProposalRow, UserProfileRow
from db.uow import Database
from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.learning.config import LearningRules
from pipeline.learning.nightly import NightlyJob
from pipeline.learning.overlay import LiveClassifier, OverlayTerm, RuleOverlays
from pipeline.learning.proposals import load_examples
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext, Language

NOW = datetime(2026, 5, 2, 1, 0, tzinfo=UTC)
OPERATORS = frozenset({11, 22})
RECORDS = [
    "розкидали селітру на 9-му, по 120 кило",
    "вчора розкидали аміачну селітру на Західному",
    "розкидали калійку на 3-му по 80 кг",
]


def _interaction(n: int, intent: str, warnings: int) -> InteractionRow:
    return InteractionRow(
        trace_id=f"n{n:04d}", user_id="tg:5", chat_id=5, mode="deep", intent=intent,
        crew=["iot"], confidence=0.9, reason="rule", latency_ms=900.0, text=None,
        created_at=NOW - timedelta(hours=2), eval_warnings=warnings, eval_infos=0,
        eval_failed=[],
    )  # fmt: skip


async def _seed(db: Database) -> None:
    rows: list[object] = [_interaction(n, "iot", 0) for n in range(5)]
    rows += [_interaction(10 + n, "general", 1 if n < 2 else 0) for n in range(4)]
    rows += [_interaction(20 + n, "planning", 0) for n in range(3)]
    rows += [
        FeedbackRow(trace_id=f"n{20 + n:04d}", user_id="tg:5", verdict="down") for n in range(2)
    ]
    rows += [
        CorrectionRow(
            trace_id=f"c{n}",
            user_id="tg:5",
            source="operator",
            text=text,
            was_mode="deep",
            was_intent="general",
            mode="deep",
            intent="recording",
            crew=["ops"],
        )
        for n, text in enumerate(RECORDS)
    ]
    async with db.write() as session:
        session.add_all(rows)


async def test_the_nightly_job_offers_a_verified_proposal_and_approve_applies_it(
    db: Database, rules: Rulebook, catalog: Catalog
) -> None:
    await _seed(db)
    async with db.write() as session:  # operator 22 writes in English; 11 has no profile
        session.add(UserProfileRow(user_id="tg:22", preferred_language="en"))
    sent: list[tuple[int, str]] = []
    languages: list[tuple[int, str, bool]] = []

    async def send(chat: int, text: str, proposal: int | None, lang: Language) -> None:
        sent.append((chat, text))
        languages.append((chat, lang, proposal is not None))

    job = NightlyJob(
        db, LearningRules.load().nightly, rules.classifier.rules, rules.grammar,
        load_examples(), catalog=catalog, operators=OPERATORS, clock=lambda: NOW,
    ).with_sender(send)  # fmt: skip
    result = await job.run()

    # general: 2 of 4 failed the checks; planning: 2 👎, 0 👍; iot is fine.
    assert [w.intent for w in result.weak] == ["general", "planning"]
    assert result.proposals, "the corrections support a change"
    pid, first = result.proposals[0]
    assert first.term == OverlayTerm(Intent.RECORDING, "trigger", "розкидали")
    async with db.read() as session:
        stored = (await session.scalars(select(ProposalRow).order_by(ProposalRow.id))).all()
    assert (stored[0].id, stored[0].status, stored[0].term) == (pid, "pending", "розкидали")
    assert stored[0].dev_after >= stored[0].dev_before
    per_operator = 1 + len(result.proposals)  # one summary, one card per proposal
    assert [chat for chat, _ in sent] == [11] * per_operator + [22] * per_operator
    assert "/rules approve" in sent[1][1] and f"#{pid}" in sent[1][1]
    # Each operator in their own language, the card's buttons too; intents by name.
    assert {(chat, lang) for chat, lang, _ in languages} == {(11, "uk"), (22, "en")}
    uk_summary, uk_card = sent[0][1], sent[1][1]
    en_summary, en_card = sent[per_operator][1], sent[per_operator + 1][1]
    assert uk_summary.startswith("🌙 Нічний звіт") and en_summary.startswith("🌙 Nightly")
    assert catalog.text("uk", "learning.intent.general") in uk_summary
    assert catalog.text("en", "learning.intent.planning") in en_summary
    assert catalog.text("uk", "learning.intent.recording") in uk_card
    assert catalog.text("en", "learning.intent.recording") in en_card
    assert "recording" not in uk_card and "тригер" in uk_card and "trigger" in en_card
    percent = f"{round(first.dev_after * 100, 1):g}"
    if "." in percent:
        assert percent.replace(".", ",") in uk_card and percent in en_card

    # Nothing is offered twice while it waits for an operator.
    again = await job.run()
    assert pid not in [p for p, _ in again.proposals]

    live = LiveClassifier(rules.classifier, rules.grammar, db)
    overlays = RuleOverlays(db, live)
    ctx = ClassifierContext()
    assert live.classify(RECORDS[0], ctx).intent != Intent.RECORDING
    outcome, version = await overlays.decide(pid, approve=True, by="tg:11")
    assert outcome == "approved" and live.version == version
    assert live.classify(RECORDS[0], ctx).intent == Intent.RECORDING
    assert await overlays.decide(pid, approve=False, by="tg:11") == ("decided", None)
    assert await overlays.decide(9999, approve=True, by="tg:11") == ("missing", None)
