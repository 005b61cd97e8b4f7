"""Handing a question to a peer over the real local NATS server: the round trip, a
refused consent sending nothing, nothing confidential in the contract, a peer that
times out or is not there, and every decision stored and counted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_session_factory
from db.models import HandoffRow
from db.repositories import handoffs as repo
from db.uow import Database
from pipeline.actions import HandoffAction, HandoffChoice
from pipeline.language.catalog import Catalog
from pipeline.peers.desk import HandoffDesk
from pipeline.peers.directory import PeerDirectory
from pipeline.peers.link import NatsLink
from pipeline.peers.routing import PeerRouter, classifier_strength
from pipeline.privacy import Sanitizer
from pipeline.profiles import FarmProfile, SeasonalContext
from pipeline.rulebook import Rulebook
from pipeline.types import Language
from tests.integration.nats_harness import (
    TestPeer,
    answering,
    isolated_directory,
    require_nats,
    silent,
)

FARMER = "tg:501"


@dataclass
class Setup:
    desk: HandoffDesk
    directory: PeerDirectory
    db: Database
    link: NatsLink
    url: str


def make_desk(
    directory: PeerDirectory,
    rules: Rulebook,
    catalog: Catalog,
    db: Database,
    link: NatsLink | None,
) -> HandoffDesk:
    return HandoffDesk(
        router=PeerRouter(directory, classifier_strength(rules.classifier)),
        sanitizer=Sanitizer(rules.privacy),
        catalog=catalog,
        database=db,
        link=link,
    )


@pytest.fixture
async def nats_url() -> str:
    return await require_nats()


async def setup(
    engine: AsyncEngine, rules: Rulebook, catalog: Catalog, url: str, **changes: dict[str, object]
) -> Setup:
    directory = isolated_directory(**changes)
    db = Database(create_session_factory(engine))
    link = NatsLink(url, name="stepan-test")
    await link.start()
    assert await link.wait_connected(10)
    return Setup(make_desk(directory, rules, catalog, db, link), directory, db, link, url)


@pytest.fixture
async def world(
    engine: AsyncEngine, rules: Rulebook, catalog: Catalog, nats_url: str
) -> AsyncIterator[Setup]:
    built = await setup(engine, rules, catalog, nats_url)
    yield built
    await built.link.close()


async def peer(world: Setup, agent: str, respond: object) -> TestPeer:
    subject = world.directory.invoke_subject(agent)
    return await TestPeer(world.url, subject, respond).start()  # type: ignore[arg-type]


async def offer(world: Setup, text: str, user: str = FARMER, lang: Language = "uk") -> int:
    route = world.desk.route(text)
    assert route is not None
    offered = await world.desk.offer(user_id=user, route=route, lang=lang)
    action = offered.buttons[0][0].action
    assert isinstance(action, HandoffAction)
    return action.handoff_id


@dataclass(frozen=True)
class Stored:
    consent: bool | None
    sent: bool
    outcome: str | None
    question: str | None
    privacy_level: str | None
    latency_ms: float | None


async def row(world: Setup, handoff_id: int) -> Stored:
    async with world.db.read() as session:
        found = await session.get(HandoffRow, handoff_id)
        assert found is not None
        return Stored(
            found.consent,
            found.sent,
            found.outcome,
            found.question,
            found.privacy_level,
            found.latency_ms,
        )


async def test_round_trip_to_a_peer(world: Setup, catalog: Catalog) -> None:
    nutra = await peer(world, "nutra", answering("Вівсянка з ягодами і яйце."))
    try:
        route = world.desk.route("що їсти на сніданок?")
        assert route is not None and route.peer.id == "nutra" and not route.partial
        offered = await world.desk.offer(user_id=FARMER, route=route, lang="uk")
        assert "Передати питання Nutra?" in offered.text
        assert "@NutraChat_bot" in offered.text
        yes, no = offered.buttons[0]
        assert isinstance(yes.action, HandoffAction) and yes.action.choice == HandoffChoice.YES
        assert isinstance(no.action, HandoffAction) and no.action.choice == HandoffChoice.NO
        reply = await world.desk.decide(yes.action, user_id=FARMER, lang="uk")
    finally:
        await nutra.stop()
    assert reply.text.startswith("Відповідь від Nutra (@NutraChat_bot):")
    assert "Вівсянка з ягодами і яйце." in reply.text
    [contract] = nutra.received
    assert contract["target_agent"] == "nutra"
    assert contract["domain"] == "nutrition"
    assert contract["intent"] == "nutrition_advice"
    assert contract["user_goal"] == "що їсти на сніданок?"
    assert contract["constraints"] == {
        "max_response_time": 30.0,
        "format": "short",
        "language": "uk",
    }
    assert contract["privacy_level"] == "public"
    assert contract["requires_consent"] is True
    assert contract["sources"] == [f"agromatrix:handoff:{yes.action.handoff_id}"]
    assert "agromatrix" in contract["context_summary"]
    stored = await row(world, yes.action.handoff_id)
    assert (stored.consent, stored.sent, stored.outcome, stored.question) == (
        True,
        True,
        "answered",
        None,
    )
    assert stored.privacy_level == "public" and stored.latency_ms is not None


async def test_a_refused_consent_sends_nothing(world: Setup) -> None:
    nutra = await peer(world, "nutra", answering("never"))
    try:
        handoff_id = await offer(world, "що їсти на сніданок?")
        reply = await world.desk.decide(
            HandoffAction(HandoffChoice.NO, handoff_id), user_id=FARMER, lang="uk"
        )
        # A late yes (another tap, a forged callback) cannot undo the no.
        late = await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id), user_id=FARMER, lang="uk"
        )
        await nutra.settle()
    finally:
        await nutra.stop()
    assert nutra.received == []
    assert reply.text.startswith("Добре, нічого не передаю")
    assert "не діє" in late.text
    stored = await row(world, handoff_id)
    assert (stored.consent, stored.sent, stored.outcome, stored.question) == (
        False,
        False,
        "refused",
        None,
    )


async def test_only_the_asker_can_consent(world: Setup) -> None:
    nutra = await peer(world, "nutra", answering("ok"))
    try:
        handoff_id = await offer(world, "що їсти на сніданок?")
        reply = await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id), user_id="tg:999", lang="uk"
        )
        await nutra.settle()
    finally:
        await nutra.stop()
    assert nutra.received == []
    assert "не діє" in reply.text
    assert (await row(world, handoff_id)).consent is None


async def test_only_the_peers_part_of_a_message_travels(world: Setup) -> None:
    druid = await peer(world, "druid", answering("Вітамін D — 1000 МО."))
    text = (
        "Мене звати Іван Петренко, телефон +380 67 123 45 67. "
        "Коли сіяти кукурудзу на Полтавщині? Який вітамін D пити взимку?"
    )
    try:
        route = world.desk.route(text)
        assert route is not None and route.partial
        assert route.own_text is not None and "кукурудзу" in route.own_text
        offered = await world.desk.offer(user_id=FARMER, route=route, lang="uk")
        action = offered.buttons[0][0].action
        assert isinstance(action, HandoffAction)
        assert offered.text.startswith("А решту питання краще до Druid")
        await world.desk.decide(action, user_id=FARMER, lang="uk")
    finally:
        await druid.stop()
    [contract] = druid.received
    assert contract["user_goal"] == "Який вітамін D пити взимку?"


async def test_nothing_confidential_reaches_the_peer(world: Setup) -> None:
    druid = await peer(world, "druid", answering("Магній увечері."))
    text = (
        "Мене звати Іван Петренко (тел. +380 67 123 45 67, ivan@farm.ua; між нами: "
        "лікар каже, що в мене анемія), пароль від кабінету: Zirka77 — який вітамін D "
        "мені пити взимку?"
    )
    try:
        handoff_id = await offer(world, text)
        farm = FarmProfile(user_id=FARMER, crop_ids=["wheat"], field_ids=["f1"])
        await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id),
            user_id=FARMER,
            lang="uk",
            known_names=["Іван"],
            farm=farm,
        )
    finally:
        await druid.stop()
    [contract] = druid.received
    sent = str(contract)
    for secret in ("Іван", "Петренко", "123 45 67", "ivan@farm.ua", "анемія", "Zirka77"):
        assert secret not in sent
    assert "вітамін D" in contract["user_goal"]
    assert contract["privacy_level"] == "confidential"
    assert "wheat" not in contract["context_summary"]  # confidential: no farm facts
    assert (await row(world, handoff_id)).privacy_level == "confidential"


async def test_farm_facts_go_only_where_the_directory_allows(world: Setup) -> None:
    greenfood = await peer(world, "greenfood", answering("Облік партій — у таблиці."))
    farm = FarmProfile(
        user_id=FARMER,
        crop_ids=["wheat", "sunflower"],
        field_ids=["f1", "f2"],
        seasonal_context=SeasonalContext(current_phase="harvest"),
    )
    try:
        handoff_id = await offer(
            world, "how do we keep batch records in our cheese co-op?", lang="en"
        )
        # The reply and the contract follow the language the question was asked in.
        await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id), user_id=FARMER, lang="uk", farm=farm
        )
    finally:
        await greenfood.stop()
    [contract] = greenfood.received
    assert contract["privacy_level"] == "team"
    assert "wheat, sunflower" in contract["context_summary"]
    assert "harvest" in contract["context_summary"]
    assert "2 fields" not in contract["context_summary"]  # field_count is not GreenFood's
    assert contract["constraints"]["language"] == "en"


async def test_a_peer_that_times_out_leaves_its_handle(
    engine: AsyncEngine, rules: Rulebook, catalog: Catalog, nats_url: str
) -> None:
    world = await setup(engine, rules, catalog, nats_url, nutra={"time_budget_s": 1})
    nutra = await peer(world, "nutra", silent)
    try:
        handoff_id = await offer(world, "що їсти на сніданок?")
        reply = await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id), user_id=FARMER, lang="uk"
        )
    finally:
        await nutra.stop()
        await world.link.close()
    assert len(nutra.received) == 1
    assert reply.text.startswith("Nutra не відповів вчасно.")
    assert "@NutraChat_bot — https://t.me/NutraChat_bot" in reply.text
    stored = await row(world, handoff_id)
    assert (stored.sent, stored.outcome) == (True, "timeout")


async def test_nobody_listening_is_not_a_wait(world: Setup) -> None:
    handoff_id = await offer(world, "скільки коштує сонячна станція на 30 кВт?")
    reply = await world.desk.decide(
        HandoffAction(HandoffChoice.YES, handoff_id), user_id=FARMER, lang="uk"
    )
    assert reply.text.startswith("Зараз не можу зв'язатися з Helion.")
    assert "https://t.me/energyunionBot" in reply.text
    assert (await row(world, handoff_id)).outcome == "no_responder"


async def test_a_peer_error_is_not_relayed_as_an_answer(world: Setup) -> None:
    async def refuse(contract: dict[str, object]) -> bytes:
        return b'{"status": "error", "error": {"code": "busy", "message": "try later"}}'

    nutra = await peer(world, "nutra", refuse)
    try:
        handoff_id = await offer(world, "what should I eat for breakfast?", lang="en")
        reply = await world.desk.decide(
            HandoffAction(HandoffChoice.YES, handoff_id), user_id=FARMER, lang="en"
        )
    finally:
        await nutra.stop()
    assert reply.text.startswith("Nutra could not answer this question.")
    assert (await row(world, handoff_id)).outcome == "error"


async def test_without_nats_the_farmer_gets_the_handle(
    engine: AsyncEngine, rules: Rulebook, catalog: Catalog
) -> None:
    db = Database(create_session_factory(engine))
    desk = make_desk(isolated_directory(), rules, catalog, db, None)
    route = desk.route("що їсти на сніданок?")
    assert route is not None
    offered = await desk.offer(user_id=FARMER, route=route, lang="uk")
    action = offered.buttons[0][0].action
    assert isinstance(action, HandoffAction)
    reply = await desk.decide(action, user_id=FARMER, lang="uk")
    assert "@NutraChat_bot — https://t.me/NutraChat_bot" in reply.text
    async with db.read() as session:
        stored = await session.get(HandoffRow, action.handoff_id)
        assert stored is not None and (stored.sent, stored.outcome) == (False, "offline")


async def test_figures_count_every_decision(world: Setup) -> None:
    nutra = await peer(world, "nutra", answering("Каша."))
    try:
        answered = await offer(world, "що їсти на сніданок?")
        refused = await offer(world, "яка дієта допоможе схуднути?")
        await offer(world, "скільки калорій у вівсянці?")  # never answered: pending
        unreached = await offer(world, "скільки коштує сонячна станція на 30 кВт?")
        for handoff_id, choice in (
            (answered, HandoffChoice.YES),
            (refused, HandoffChoice.NO),
            (unreached, HandoffChoice.YES),
        ):
            await world.desk.decide(HandoffAction(choice, handoff_id), user_id=FARMER, lang="uk")
    finally:
        await nutra.stop()
    now = datetime.now(UTC)
    async with world.db.read() as session:
        figures = await repo.figures(
            session, since=now - timedelta(hours=1), until=now + timedelta(hours=1)
        )
    assert (figures.offered, figures.consented, figures.refused, figures.pending) == (4, 2, 1, 1)
    assert (figures.sent, figures.answered, figures.unreached) == (1, 1, 1)
    assert figures.by_peer["nutra"].offered == 3
    assert figures.by_peer["helion"].consented == 1
    assert figures.consent_rate == pytest.approx(2 / 3)
    # No interactions were recorded in this test: no traffic, no share.
    assert figures.messages == 0 and figures.share_handed_off == 0.0


async def test_an_offer_nobody_answers_loses_its_question_after_a_week(
    engine: AsyncEngine,
) -> None:
    db = Database(create_session_factory(engine))
    now = datetime.now(UTC)
    async with db.write() as session:
        for days in (8, 6):
            handoff_id = await repo.add_offer(
                session,
                user_id=FARMER,
                peer="nutra",
                domain="nutrition",
                language="uk",
                question=f"питання {days}",
                partial=False,
            )
            row = await session.get(HandoffRow, handoff_id)
            assert row is not None
            row.created_at = now - timedelta(days=days)
    async with db.write() as session:
        assert await repo.expire_offers_before(session, now - timedelta(days=7)) == 1
    async with db.read() as session:
        rows = (await session.execute(select(HandoffRow).order_by(HandoffRow.id))).scalars()
        assert [(r.user_id, r.question, r.consent) for r in rows] == [
            (None, None, None),
            (FARMER, "питання 6", None),
        ]
