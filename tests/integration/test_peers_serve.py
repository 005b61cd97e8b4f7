"""Stepan as a peer, over the real local NATS server: contracts on
``agent.agromatrix.invoke`` answered through the pipeline's parts, invalid ones
refused with a structured error, and the card on ``agent.agromatrix.card``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from nats.aio.client import Client
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_session_factory
from db.models import HandoffRow, InteractionRow, OperationDraftRow, UserProfileRow
from db.uow import Database
from pipeline.crew.wiring import build_brains
from pipeline.handle import Pipeline
from pipeline.language.choice import detect_language
from pipeline.memory import Memory
from pipeline.peers.answer import PeerQuestion, StrangerAnswerer
from pipeline.peers.directory import PeerDirectory
from pipeline.peers.link import NatsLink
from pipeline.peers.server import PeerServer
from pipeline.privacy import Sanitizer
from pipeline.rulebook import Rulebook
from tests.fakes.llm import ScriptedLLM, scripted
from tests.integration.nats_harness import isolated_directory, require_nats
from tests.unit.test_peers_contract import adr_example


@dataclass
class Served:
    server: PeerServer
    directory: PeerDirectory
    db: Database
    link: NatsLink
    client: Client

    async def ask(self, body: dict[str, Any] | bytes, wait_s: float = 10) -> dict[str, Any]:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        msg = await self.client.request(self.server.invoke_subject, payload, timeout=wait_s)
        answer = json.loads(msg.data)
        assert isinstance(answer, dict)
        return answer

    async def count(self, model: type[Any], *where: Any) -> int:
        async with self.db.read() as session:
            return int(
                await session.scalar(select(func.count()).select_from(model).where(*where)) or 0
            )


def answerer_for(
    pipeline: Pipeline, directory: PeerDirectory, db: Database, **parts: Any
) -> StrangerAnswerer:
    return StrangerAnswerer(
        catalog=pipeline.catalog,
        classifier=pipeline.classifier,
        responder=parts.get("responder", pipeline.responder),
        deep=parts.get("deep", pipeline.deep),
        directory=directory,
    )


async def serve(
    engine: AsyncEngine,
    rules: Rulebook,
    url: str,
    make_answerer: Any,
) -> Served:
    directory = isolated_directory()
    db = Database(create_session_factory(engine))
    link = NatsLink(url, name="stepan-served")
    server = PeerServer(
        directory=directory,
        answerer=make_answerer(directory, db),
        sanitizer=Sanitizer(rules.privacy),
        database=db,
        link=link,
    )
    await server.start()
    await link.start()
    assert await link.wait_connected(10)
    client = Client()
    await client.connect(url, allow_reconnect=False)
    return Served(server, directory, db, link, client)


@pytest.fixture
async def served(engine: AsyncEngine, pipeline: Pipeline, rules: Rulebook) -> AsyncIterator[Served]:
    url = await require_nats()
    world = await serve(
        engine, rules, url, lambda directory, db: answerer_for(pipeline, directory, db)
    )
    yield world
    await world.client.close()
    await world.link.close()


def contract(goal: str, **changes: Any) -> dict[str, Any]:
    return adr_example(user_goal=goal, **changes)


async def test_a_valid_contract_is_answered_and_nothing_is_kept(served: Served) -> None:
    answer = await served.ask(contract("коли сіяти кукурудзу?", source_agent="daarwizz"))
    assert answer["status"] == "ok", answer
    assert answer["agent"] == "agromatrix"
    assert answer["language"] == "uk"
    assert answer["answer"] and detect_language(answer["answer"], fallback="en") == "uk"
    # A stranger leaves no profile and no interaction behind; only the count.
    assert await served.count(UserProfileRow) == 0
    assert await served.count(InteractionRow) == 0
    async with served.db.read() as session:
        [(direction, peer, outcome, question)] = (
            await session.execute(
                select(
                    HandoffRow.direction, HandoffRow.peer, HandoffRow.outcome, HandoffRow.question
                )
            )
        ).all()
    assert (direction, peer, outcome, question) == ("in", "daarwizz", "answered", None)


async def test_the_language_is_honoured(served: Served) -> None:
    constraints = {"max_response_time": 20, "format": "medium", "language": "en"}
    answer = await served.ask(contract("when should I sow maize?", constraints=constraints))
    assert answer["status"] == "ok", answer
    assert answer["language"] == "en"
    assert detect_language(answer["answer"], fallback="uk") == "en"


async def test_the_format_picks_the_style(served: Served, pipeline: Pipeline) -> None:
    brief = {"max_response_time": 20, "format": "short", "language": "uk"}
    answer = await served.ask(contract("дякую!", constraints=brief))
    assert answer["answer"] == pipeline.catalog.text("uk", "light.brief.thanks")


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (b"{not json", "invalid_json", None),
        (
            {k: v for k, v in adr_example().items() if k != "constraints"},
            "invalid_contract",
            "constraints",
        ),
        (contract("коли сіяти?", privacy_level="top"), "invalid_contract", "privacy_level"),
        (contract("коли сіяти?", target_agent="nutra"), "wrong_target", "target_agent"),
        (
            contract(
                "wann Mais säen?",
                constraints={"max_response_time": 5, "format": "short", "language": "de"},
            ),
            "unsupported_language",
            "constraints.language",
        ),
    ],
)
async def test_an_invalid_contract_gets_a_structured_error(
    served: Served, body: dict[str, Any] | bytes, code: str, field: str | None
) -> None:
    answer = await served.ask(body)
    assert answer["status"] == "error"
    assert answer["agent"] == "agromatrix"
    assert answer["error"]["code"] == code
    assert answer["error"]["field"] == field
    assert answer["error"]["message"]


async def test_a_question_for_another_peer_names_it(served: Served) -> None:
    answer = await served.ask(contract("що їсти на сніданок?"))
    assert answer["error"]["code"] == "out_of_domain"
    assert "nutra" in answer["error"]["message"]


async def test_a_stranger_cannot_write_to_a_journal(served: Served) -> None:
    answer = await served.ask(contract("запиши полив 20 мм на полі 2 вчора"))
    assert answer["error"]["code"] == "action_not_allowed"
    assert await served.count(OperationDraftRow) == 0
    assert await served.count(HandoffRow, HandoffRow.outcome == "action_not_allowed") == 1


async def test_the_card_answers_and_is_published_on_connect(
    engine: AsyncEngine, pipeline: Pipeline, rules: Rulebook
) -> None:
    url = await require_nats()
    directory = isolated_directory()
    listener = Client()
    await listener.connect(url, allow_reconnect=False)
    published: list[dict[str, Any]] = []

    async def on_card(msg: Any) -> None:
        if not msg.reply:
            published.append(json.loads(msg.data))

    await listener.subscribe(directory.card_subject("agromatrix"), cb=on_card)
    await listener.flush()
    db = Database(create_session_factory(engine))
    link = NatsLink(url)
    server = PeerServer(
        directory=directory,
        answerer=answerer_for(pipeline, directory, db),
        sanitizer=Sanitizer(rules.privacy),
        database=db,
        link=link,
    )
    try:
        await server.start()
        await link.start()
        assert await link.wait_connected(10)
        reply = await listener.request(server.card_subject, b"", timeout=5)
        for _ in range(50):
            if published:
                break
            await asyncio.sleep(0.05)
    finally:
        await listener.close()
        await link.close()
    card = json.loads(reply.data)
    assert card["agent_id"] == "agromatrix"
    assert card["invoke"] == server.invoke_subject
    assert card["domain"] == "agronomy" and card["examples"]
    assert published and published[0] == card


class SlowAnswerer(StrangerAnswerer):
    async def answer(self, question: PeerQuestion) -> str:
        await asyncio.sleep(5)
        return "too late"


async def test_the_time_budget_is_honoured(
    engine: AsyncEngine, pipeline: Pipeline, rules: Rulebook
) -> None:
    url = await require_nats()

    def slow(directory: PeerDirectory, db: Database) -> StrangerAnswerer:
        return SlowAnswerer(
            catalog=pipeline.catalog,
            classifier=pipeline.classifier,
            responder=pipeline.responder,
            deep=pipeline.deep,
            directory=directory,
        )

    world = await serve(engine, rules, url, slow)
    try:
        quick = {"max_response_time": 1.5, "format": "short", "language": "uk"}
        # The requester waits exactly the budget it gave: the error must come before.
        answer = await world.ask(contract("коли сіяти кукурудзу?", constraints=quick), wait_s=1.5)
    finally:
        await world.client.close()
        await world.link.close()
    assert answer["error"]["code"] == "time_budget_exceeded"


@pytest.fixture
def llm(pipeline: Pipeline, rules: Rulebook) -> Iterator[ScriptedLLM]:
    fake = scripted(replies={"": "Усе добре, дякую! Як ваші посіви?"})
    yield fake
    fake.release()


async def test_a_confidential_contract_never_reaches_the_llm(
    engine: AsyncEngine,
    pipeline: Pipeline,
    rules: Rulebook,
    llm: ScriptedLLM,
    db: Database,
    memory: Memory,
) -> None:
    url = await require_nats()
    brains = build_brains(pipeline.catalog, pipeline.journal, db, memory.sync, rules=rules, llm=llm)

    def with_llm(directory: PeerDirectory, db: Database) -> StrangerAnswerer:
        return answerer_for(pipeline, directory, db, responder=brains.responder, deep=brains.deep)

    world = await serve(engine, rules, url, with_llm)
    try:
        public = await world.ask(contract("привіт, як справи?"))
        calls_after_public = llm.call_count
        secret = await world.ask(
            contract("привіт, як справи? мій телефон 0671234567", privacy_level="confidential")
        )
    finally:
        await world.client.close()
        await world.link.close()
    assert public["status"] == "ok" and calls_after_public >= 1
    assert secret["status"] == "ok"
    assert llm.call_count == calls_after_public
    assert "0671234567" not in json.dumps(llm.calls, default=str)
