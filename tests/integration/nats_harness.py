"""Real NATS for the peer tests: the machine's server (127.0.0.1:4222), a test peer
answering over it with nats-py, and a private nats-server process a test may stop
and start to play NATS going down and coming back.

Every test uses subjects of its own (a random prefix in the directory's subject
templates), so tests and other processes sharing the server never see each other's
requests.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
import socket
import subprocess
import tomllib
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from pipeline.grammar import Grammar
from pipeline.peers.directory import DEFAULT_PEERS, PeerDirectory

NATS_URL = os.environ.get("STEPAN_TEST_NATS_URL", "nats://127.0.0.1:4222")
NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"


async def port_open(host: str, port: int, wait_s: float = 1.0) -> bool:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), wait_s)
    except (OSError, TimeoutError):
        return False
    writer.close()
    await writer.wait_closed()
    return True


async def require_nats(url: str = NATS_URL) -> str:
    """The URL of a NATS server that answers; in CI a missing one fails the test."""
    host, port = url.removeprefix("nats://").rsplit(":", 1)
    if await port_open(host, int(port)):
        return url
    message = f"NATS not reachable at {url} (.ci/run starts nats-server)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(reason=message)


def isolated_directory(**peer_changes: dict[str, Any]) -> PeerDirectory:
    """The real directory with subjects of this test's own; ``nutra={"time_budget_s": 1}``
    changes an entry."""
    with DEFAULT_PEERS.open("rb") as fh:
        raw = copy.deepcopy(tomllib.load(fh))
    prefix = f"t{uuid.uuid4().hex[:12]}"
    raw["settings"]["invoke_subject"] = prefix + ".agent.{agent_id}.invoke"
    raw["settings"]["card_subject"] = prefix + ".agent.{agent_id}.card"
    for name, changes in peer_changes.items():
        raw["peers"][name].update(changes)
    return PeerDirectory.from_mapping(raw, Grammar.load())


Responder = Callable[[dict[str, Any]], Awaitable[bytes | None]]


class TestPeer:
    """Another agent on NATS: records every contract it gets, answers as told
    (``None`` means it never answers)."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, url: str, subject: str, respond: Responder) -> None:
        self.url = url
        self.subject = subject
        self.respond = respond
        self.received: list[dict[str, Any]] = []
        self.nc = Client()

    async def start(self) -> TestPeer:
        await self.nc.connect(self.url, allow_reconnect=False, connect_timeout=2)

        async def on_request(msg: Msg) -> None:
            contract = json.loads(msg.data)
            self.received.append(contract)
            reply = await self.respond(contract)
            if reply is not None:
                await msg.respond(reply)

        await self.nc.subscribe(self.subject, cb=on_request)
        await self.nc.flush()
        return self

    async def settle(self) -> None:
        """Everything published before now has reached the server and this client."""
        await self.nc.flush()
        await asyncio.sleep(0.1)

    async def stop(self) -> None:
        if not self.nc.is_closed:
            await self.nc.close()


def answering(text: str) -> Responder:
    async def respond(contract: dict[str, Any]) -> bytes:
        body = {"status": "ok", "agent": contract["target_agent"], "answer": text}
        return json.dumps(body, ensure_ascii=False).encode()

    return respond


async def silent(contract: dict[str, Any]) -> None:
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateNats:
    """A nats-server of this test's own on a free port: stop it, start it again."""

    def __init__(self, store: Path) -> None:
        if not Path(NATS_SERVER).exists():
            message = f"nats-server not installed at {NATS_SERVER} (.ci/run uses it)"
            if os.environ.get("CI"):
                pytest.fail(message)  # in CI a missing server fails, as require_nats does
            pytest.skip(reason=message)
        self.port = free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.store = store
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.process = await asyncio.to_thread(
            subprocess.Popen,
            [NATS_SERVER, "-a", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if await port_open("127.0.0.1", self.port, 0.2):
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("private nats-server did not start")

    async def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            await asyncio.to_thread(self.process.wait, 10)
        self.process = None
