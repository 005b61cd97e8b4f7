"""handle_message on a real migrated SQLite database."""

from __future__ import annotations

import asyncio
import tomllib
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.engine import create_engine
from db.models import FarmProfileRow, InteractionRow, UserProfileRow
from db.uow import Database
from pipeline import gate
from pipeline.actions import (
    Action,
    JournalAction,
    JournalVerb,
    OnboardingAction,
    OnboardingChoice,
    StyleAction,
)
from pipeline.classifier import DEFAULT_RULES, Classifier
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.replies.light import LightRequest
from pipeline.rulebook import Rulebook
from pipeline.types import DepthDecision, Incoming, Reply
from tests.conftest import make_settings


def _incoming(text: str, user: str = "tg:42", **kwargs: object) -> Incoming:
    return Incoming(
        user_id=user,
        chat_id=42,
        text=text,
        trace_id=uuid.uuid4().hex[:16],
        first_name=kwargs.pop("first_name", "Оксана"),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


async def _send(
    pipeline: Pipeline, factory: async_sessionmaker[AsyncSession], text: str, **kwargs: object
) -> Reply:
    # ``factory`` stays in the signature: the tests read the database through it.
    return await pipeline.handle_message(_incoming(text, **kwargs))


async def _user(factory: async_sessionmaker[AsyncSession], user: str = "tg:42") -> UserProfileRow:
    async with factory() as session:
        row = await session.get(UserProfileRow, user)
        assert row is not None
        return row


async def test_greeting_is_light_and_personal(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    reply = await _send(pipeline, session_factory, "привіт")
    assert reply.mode == "light" and reply.intent == "greeting" and reply.crew == ()
    assert "Оксано" in reply.text  # addressed in the vocative (issue 30)
    # First contact: onboarding is offered so Stepan knows the farm from day one.
    assert [b.action for b in reply.buttons[0]] == [
        OnboardingAction(OnboardingChoice.START),
        OnboardingAction(OnboardingChoice.LATER),
    ]
    again = await _send(pipeline, session_factory, "привіт")
    assert again.buttons == ()
    assert "Оксано" in again.text


@pytest.mark.parametrize(
    ("name", "called"),
    [("Василь Іванович", "Василю Івановичу"), ("Ігор", "Ігорю"), ("Мар'яна", "Мар'яно")],
)
async def test_a_greeting_calls_the_farmer_in_the_vocative(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], name: str, called: str
) -> None:
    reply = await _send(pipeline, session_factory, "привіт", first_name=name)
    assert reply.intent == "greeting" and called in reply.text, reply.text
    # The profile keeps the name as given; «хто я» states it in the nominative.
    assert (await _user(session_factory)).name == name
    whoami = await _send(pipeline, session_factory, "хто я", first_name=name)
    assert f"{name}." in whoami.text and called not in whoami.text, whoami.text


async def test_an_english_reply_keeps_the_name_as_written(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    reply = await _send(pipeline, session_factory, "hello Stepan", first_name="Олена")
    assert "Олена" in reply.text and "Олено" not in reply.text, reply.text


async def test_english_message_gets_english_reply(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    reply = await _send(pipeline, session_factory, "hello Stepan", first_name="John")
    assert reply.text.startswith("Hi, John")


async def test_profile_accumulates(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    for text in ("привіт", "дякую", "хто я"):
        await _send(pipeline, session_factory, text)
    row = await _user(session_factory)
    assert row.interaction_count == 3
    assert row.name == "Оксана"
    assert row.known_intents == ["greeting", "thanks", "whoami"]
    assert [t["intent"] for t in row.recent_topics] == ["greeting", "thanks", "whoami"]
    assert row.last_seen is not None
    async with session_factory() as session:
        farm = (await session.execute(select(FarmProfileRow))).scalar_one()
        interactions = (await session.execute(select(InteractionRow))).scalars().all()
    assert farm.user_id == "tg:42" and farm.farm_id.startswith("farm:")
    assert [i.intent for i in interactions] == ["greeting", "thanks", "whoami"]
    assert all(i.mode == "light" and i.latency_ms >= 0 for i in interactions)


async def test_recent_topics_keep_last_ten(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    for _ in range(12):
        await _send(pipeline, session_factory, "дякую")
    await _send(pipeline, session_factory, "привіт")
    row = await _user(session_factory)
    assert len(row.recent_topics) == 10
    assert row.recent_topics[-1]["intent"] == "greeting"
    assert row.interaction_count == 13


async def test_whoami_reports_count(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await _send(pipeline, session_factory, "привіт")
    await _send(pipeline, session_factory, "дякую")
    reply = await _send(pipeline, session_factory, "хто я")
    catalog = pipeline.catalog
    whoami = catalog.text(
        "uk",
        "light.whoami",
        name="Оксана",
        expertise=catalog.text("uk", "expertise.novice"),  # a new user's level
        style=catalog.text("uk", "styles.conversational"),
        times="2 рази",
        operator="",
    )
    # A novice also reads what the level and the style mean.
    assert reply.text == f"{whoami}\n\n{catalog.text('uk', 'level.novice.why.light.whoami')}"


async def test_deep_request_answers_with_intent(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await _send(pipeline, session_factory, "привіт")
    reply = await _send(pipeline, session_factory, "запиши полив 20 мм на полі 3 вчора")
    assert reply.mode == "deep" and reply.intent == "recording"
    assert "ops" in reply.crew
    # Nothing is written without consent: a card with write / edit / cancel.
    assert reply.text.startswith("📝")
    card = reply.buttons[0][0].action
    assert isinstance(card, JournalAction)
    assert [b.action for b in reply.buttons[0]] == [
        JournalAction(verb, card.draft_id)
        for verb in (JournalVerb.WRITE, JournalVerb.EDIT, JournalVerb.CANCEL)
    ]


async def test_concurrent_messages_lose_no_update(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await _send(pipeline, session_factory, "привіт")
    before = (await _user(session_factory)).interaction_count
    await asyncio.gather(*(_send(pipeline, session_factory, "дякую") for _ in range(20)))
    assert (await _user(session_factory)).interaction_count == before + 20


async def test_many_new_users_at_once(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    users = [f"tg:{n}" for n in range(15)]
    await asyncio.gather(*(_send(pipeline, session_factory, "привіт", user=u) for u in users * 2))
    async with session_factory() as session:
        count = await session.scalar(select(func.count()).select_from(UserProfileRow))
        total = await session.scalar(select(func.sum(UserProfileRow.interaction_count)))
    assert count == 15 and total == 30


async def test_classifier_exception_gives_fail_safe_deep(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(text: str, ctx: object) -> DepthDecision:
        raise RuntimeError("rules file corrupted")

    monkeypatch.setattr(pipeline.classifier, "classify", boom)
    reply = await _send(pipeline, session_factory, "привіт")
    assert reply.mode == "deep" and reply.intent == "unknown"
    assert reply.crew == ("iot", "ops", "platform", "sustainability") or reply.crew == (
        "ops",
        "platform",
        "sustainability",
    )


async def test_database_broken_still_answers(
    settings: Settings, catalog: Catalog, rules: Rulebook, tmp_path: Path
) -> None:
    # A database without the schema: every query fails, the farmer still gets a reply.
    broken = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'unmigrated.db'}")
    pipeline = build_pipeline(settings, Database.of(broken), catalog, rules=rules)
    reply = await pipeline.handle_message(_incoming("привіт"))
    await broken.dispose()
    assert reply.mode == "light"
    assert "Оксано" in reply.text


async def test_responder_crash_gives_polite_error(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(request: object) -> str:
        raise RuntimeError("template bug")

    monkeypatch.setattr(pipeline.responder, "answer", boom)
    incoming = _incoming("привіт")
    reply = await pipeline.handle_message(incoming)
    assert incoming.trace_id[:8] in reply.text
    assert "Traceback" not in reply.text and "RuntimeError" not in reply.text
    assert gate.current_depth() == 0


async def test_reentrant_call_is_refused(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A step inside handle_message (as a sub-agent would) calls it again: refused."""
    original = pipeline.responder.answer
    nested: list[asyncio.Task[Reply]] = []

    def answer(request: LightRequest) -> str:
        async def call_again() -> Reply:
            return await pipeline.handle_message(_incoming("привіт"))

        # create_task copies the current context, as any sub-task spawned here would.
        nested.append(asyncio.get_running_loop().create_task(call_again()))
        return original(request)

    monkeypatch.setattr(pipeline.responder, "answer", answer)
    outer = await pipeline.handle_message(_incoming("привіт"))
    refused = await nested[0]
    assert outer.intent == "greeting"
    assert refused.intent == "refused"
    assert refused.text == pipeline.catalog.text("uk", "errors.recursion")
    assert gate.current_depth() == 0


async def test_style_button_sets_style(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await _send(pipeline, session_factory, "привіт")
    reply = await pipeline.handle_action(StyleAction("brief"), _incoming(""))
    assert "коротко" in reply.text
    assert (await _user(session_factory)).preferred_style == "brief"


@pytest.mark.parametrize(
    "action",
    [
        StyleAction("loud"),  # type: ignore[arg-type]
        StyleAction(""),  # type: ignore[arg-type]
        JournalAction(JournalVerb.WRITE, 999),  # no such card
        OnboardingAction(OnboardingChoice.SKIP),  # not in onboarding
    ],
)
async def test_forged_action_changes_nothing(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], action: Action
) -> None:
    """The callback data is typed in the bot (tests/handlers check forged strings);
    a well-typed action that does not fit is still refused here."""
    await _send(pipeline, session_factory, "привіт")
    reply = await pipeline.handle_action(action, _incoming(""))
    assert reply.text == pipeline.catalog.text("uk", "actions.expired")
    assert (await _user(session_factory)).preferred_style == "conversational"


async def test_a_user_who_writes_again_is_active_again(
    pipeline: Pipeline, memory: Memory, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await _send(pipeline, session_factory, "привіт")
    await memory.editor.set_active("tg:42", False)
    assert (await _user(session_factory)).active is False
    await _send(pipeline, session_factory, "дякую")
    assert (await _user(session_factory)).active is True


async def test_forced_deep_greeting_is_still_a_greeting(
    sqlite_url: str,
    db: Database,
    catalog: Catalog,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    forced = build_pipeline(make_settings(sqlite_url, force_deep=True), db, catalog, rules=rules)
    await _send(forced, session_factory, "привіт")
    reply = await _send(forced, session_factory, "привіт")
    assert reply.mode == "deep" and reply.intent == "greeting"  # routed and recorded deep
    assert "Оксано" in reply.text  # but answered as a greeting, by name


async def test_a_pipeline_built_with_other_rules_follows_them(
    settings: Settings,
    db: Database,
    catalog: Catalog,
    rules: Rulebook,
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    """The rules come from the Rulebook handed to the factory: another classifier file
    changes the routing of a pipeline built with it, without patching anything."""
    raw = tomllib.loads(DEFAULT_RULES.read_text("utf-8"))
    raw["intents"]["greeting"]["triggers"].append("=агов")
    other = replace(rules, classifier=Classifier.from_mapping(raw, grammar=rules.grammar))
    stock = build_pipeline(settings, db, catalog, rules=rules)
    assert (await _send(stock, session_factory, "агов")).intent != "greeting"
    custom = build_pipeline(settings, db, catalog, rules=other)
    reply = await _send(custom, session_factory, "агов")
    assert (reply.mode, reply.intent) == ("light", "greeting")


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("ой, помилився: не 150, а 120 кг/га", "correction"),
        ("видали останній запис", "correction"),
    ],
)
async def test_an_intent_before_its_capability_gets_an_honest_reply(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    catalog: Catalog,
    text: str,
    intent: str,
) -> None:
    """Corrections are recognised (issue 25 point 5) before they are served: the
    farmer reads what Stepan cannot do yet, never a planning answer, a "not
    understood" or a record card, and the interaction keeps the intent. (The weather
    has its answer since issue 27: tests/integration/test_weather_answers.py.)"""
    await _send(pipeline, session_factory, "привіт")
    lang = "en" if text.isascii() else "uk"
    reply = await _send(pipeline, session_factory, text, language_code=lang)
    assert reply.intent == intent and reply.mode == "deep"
    # A correction with nothing recorded yet says so (pipeline/farm/journal/edits).
    key = "journal_edit.nothing" if intent == "correction" else f"not_yet.{intent}"
    assert reply.text.startswith(catalog.text(lang, key))
    assert not any(isinstance(b.action, JournalAction) for row in reply.buttons for b in row)
    async with session_factory() as session:
        last = await session.scalar(
            select(InteractionRow).order_by(InteractionRow.id.desc()).limit(1)
        )
    assert last is not None and last.intent == intent
