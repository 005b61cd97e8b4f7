"""NATS down at start-up and mid-run costs farmers nothing: the bot starts at once,
every message is answered, a handoff falls back to the peer's handle without waiting
out a timeout, and when NATS comes back the link reconnects by itself, Stepan serves
contracts again and republishes its card.

A private nats-server process (tests/integration/nats_harness.py) plays the outage;
the machine's shared server is never touched.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client
from pydantic import SecretStr
from sqlalchemy import select

from bot.config import Settings
from bot.keyboards.pipeline import HandoffCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import HandoffRow
from pipeline.peers.link import NatsLink
from pipeline.rulebook import Rulebook
from tests.conftest import make_settings
from tests.integration.nats_harness import PrivateNats, TestPeer, answering, isolated_directory
from tests.unit.test_peers_contract import adr_example

FARMER = 4242


@pytest.fixture
async def nats(tmp_path: Path) -> AsyncIterator[PrivateNats]:
    server = PrivateNats(tmp_path)
    yield server
    await server.stop()


@pytest.fixture
async def core(sqlite_url: str, rules: Rulebook, nats: PrivateNats) -> AsyncIterator[Core]:
    base = make_settings(sqlite_url)
    stepan = base.stepan.model_copy(update={"nats_url": SecretStr(nats.url)})
    core = build_core(
        Settings(stepan=stepan, agx=base.agx),
        rules=dataclasses.replace(rules, peers=isolated_directory()),
    )
    try:
        yield core
    finally:
        await core.close()


def texts(calls: list[ApiCall]) -> list[str]:
    return [str(call.params.get("text", "")) for call in calls if call.method == "sendMessage"]


async def handoff(tg: LocalBot, question: str) -> str:
    """Ask a peer's question, press yes; the text the farmer finally gets."""
    [offer] = await tg.say(FARMER, question)
    buttons = offer.params["reply_markup"]["inline_keyboard"][0]
    yes = buttons[0]["callback_data"]
    assert HandoffCD.unpack(yes).choice == "yes"
    assert isinstance(offer.result, dict)
    calls = await tg.press(FARMER, yes, int(offer.result["message_id"]))
    return texts(calls)[-1]


async def outcomes(core: Core) -> list[str | None]:
    async with core.db.read() as session:
        return list(
            (
                await session.execute(
                    select(HandoffRow.outcome)
                    .where(HandoffRow.direction == "out")
                    .order_by(HandoffRow.id)
                )
            ).scalars()
        )


async def ask_stepan(url: str, core: Core) -> dict[str, Any]:
    assert core.peer_server is not None
    client = Client()
    await client.connect(url, allow_reconnect=False)
    try:
        msg = await client.request(
            core.peer_server.invoke_subject,
            json.dumps(adr_example(user_goal="коли сіяти кукурудзу?")).encode(),
            timeout=10,
        )
    finally:
        await client.close()
    answer = json.loads(msg.data)
    assert isinstance(answer, dict)
    return answer


async def wait_until(condition: Any, seconds: float = 15) -> bool:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        await asyncio.sleep(0.05)
    return bool(condition())


async def test_nats_down_at_start_up(core: Core, nats: PrivateNats) -> None:
    # The bot starts while nothing listens on the NATS port.
    await core.start_peers()
    assert core.peer_link is not None and not core.peer_link.connected
    tg = LocalBot(build_dispatcher(core))
    # Farm questions are answered as ever (this one from the knowledge base).
    assert texts(await tg.say(FARMER, "коли сіяти кукурудзу?"))[0].startswith("Кукурудза — строки")
    # A handoff falls back to the handle at once (not after a timeout: no request left).
    fallback = await handoff(tg, "що їсти на сніданок?")
    assert "@NutraChat_bot — https://t.me/NutraChat_bot" in fallback
    assert await outcomes(core) == ["offline"]
    # NATS comes up: the link connects by itself and everything works.
    await nats.start()
    assert await core.peer_link.wait_connected(15)
    subject = core.pipeline.peers.directory.invoke_subject("nutra")  # type: ignore[union-attr]
    nutra = await TestPeer(nats.url, subject, answering("Каша з ягодами.")).start()
    try:
        relayed = await handoff(tg, "що їсти на сніданок?")
    finally:
        await nutra.stop()
    assert relayed.endswith("Каша з ягодами.")
    assert (await ask_stepan(nats.url, core))["status"] == "ok"
    assert await outcomes(core) == ["offline", "answered"]


async def test_nats_down_mid_run(core: Core, nats: PrivateNats) -> None:
    await nats.start()
    await core.start_peers()
    assert core.peer_link is not None and await core.peer_link.wait_connected(15)
    assert (await ask_stepan(nats.url, core))["status"] == "ok"
    tg = LocalBot(build_dispatcher(core))

    await nats.stop()
    assert await wait_until(lambda: not core.peer_link.connected)  # type: ignore[union-attr]
    assert texts(await tg.say(FARMER, "коли сіяти кукурудзу?"))[0].startswith("Кукурудза — строки")
    fallback = await handoff(tg, "скільки коштує сонячна станція на 30 кВт?")
    assert "@energyunionBot — https://t.me/energyunionBot" in fallback
    assert await outcomes(core) == ["offline"]

    # Back again on the same port: reconnected, subscriptions replayed.
    await nats.start()
    assert await core.peer_link.wait_connected(15)
    assert (await ask_stepan(nats.url, core))["status"] == "ok"
    assert core.peer_server is not None
    listener = Client()
    await listener.connect(nats.url, allow_reconnect=False)
    try:
        reply = await listener.request(core.peer_server.card_subject, b"", timeout=5)
    finally:
        await listener.close()
    assert json.loads(reply.data)["agent_id"] == "agromatrix"


async def test_a_password_in_the_url_is_never_logged(
    nats: PrivateNats, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    link = NatsLink(nats.url.replace("nats://", "nats://stepan:s3cret@"))
    await link.start()  # the server is down first: errors are logged, the URL is not
    await asyncio.sleep(0.3)
    await nats.start()
    try:
        assert await link.wait_connected(15)
    finally:
        await link.close()
    assert f"nats: connected to 127.0.0.1:{nats.port}" in caplog.text
    assert "s3cret" not in caplog.text
