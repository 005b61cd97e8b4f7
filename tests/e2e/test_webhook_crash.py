"""Two webhook instances on PostgreSQL and Redis; one is SIGKILLed in the middle of
a burst. Every update the dead one had answered 200 for is in the inbox; the
survivor replays them once their lease runs out (and the dead one's per-user Redis
locks free as soon), so every message is answered and counted exactly once.

Telegram delivers each update until some instance answers 200: the load here posts
each update to the instances in turn and, when one refuses the connection, to the
other, as a balancer in front of them would.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from redis.asyncio import Redis
from sqlalchemy import text

from db.engine import create_engine
from tests.e2e.conftest import REPO, START_TIMEOUT, bot_env
from tests.fakes.bot_api import FakeBotAPI
from tests.integration.test_throttle import REDIS_URL, redis  # noqa: F401 - the fixture

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

SECRET = "crash-webhook-secret"
PATH = "/telegram/webhook"
USERS = (801, 802, 803, 804)
PER_USER = 30  # 120 messages
KILL_AFTER = 40  # updates accepted before the first instance dies
LEASE_S = "2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def message(update_id: int, user: int) -> dict[str, Any]:
    sender = {"id": user, "is_bot": False, "first_name": "Ганна", "language_code": "uk"}
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(time.time()),
            "chat": {"id": user, "type": "private", "first_name": "Ганна"},
            "from": sender,
            "text": f"привіт {update_id}",
        },
    }


async def spawn(api: FakeBotAPI, url: str, port: int, workdir: Path) -> Any:
    env = bot_env(
        api.base_url,
        url,
        STEPAN_REDIS_URL=REDIS_URL,
        STEPAN_WEBHOOK_SECRET=SECRET,
        STEPAN_WEBHOOK_PORT=str(port),
        STEPAN_WEBHOOK_PATH=PATH,
        STEPAN_INBOX_LEASE_S=LEASE_S,
    )
    log = (workdir / f"instance-{port}.log").open("wb")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", "--webhook",
        cwd=workdir, env=env | {"PYTHONPATH": str(REPO)},
        stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
    )  # fmt: skip


async def ready(http: aiohttp.ClientSession, port: int, proc: Any) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert proc.returncode is None, f"instance on {port} exited with {proc.returncode}"
        with contextlib.suppress(aiohttp.ClientError):
            async with http.get(f"http://127.0.0.1:{port}/readyz") as response:
                if response.status == 200:
                    return
        await asyncio.sleep(0.2)
    raise AssertionError(f"instance on {port} not ready")


async def deliver(http: aiohttp.ClientSession, ports: list[int], body: dict[str, Any]) -> None:
    """Until an instance answers 200, as Telegram would."""
    for _ in range(200):
        for port in ports:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.post(
                    f"http://127.0.0.1:{port}{PATH}",
                    json=body,
                    headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                ) as response:
                    if response.status == 200:
                        return
        await asyncio.sleep(0.1)
    raise AssertionError(f"update {body['update_id']} never taken")


async def rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return [tuple(row) for row in (await conn.execute(text(sql))).all()]
    finally:
        await engine.dispose()


async def test_sigkill_of_one_of_two_webhook_instances_mid_burst(
    migrated_postgres_url: str,
    redis: Redis,  # noqa: F811 - Redis must be there
    tmp_path: Path,
) -> None:
    url = migrated_postgres_url
    await redis.flushdb()
    procs: list[Any] = []
    async with FakeBotAPI(validate=False) as api, aiohttp.ClientSession() as http:
        try:
            ports = [free_port(), free_port()]
            procs = [await spawn(api, url, port, tmp_path) for port in ports]
            for port, proc in zip(ports, procs, strict=True):
                await ready(http, port, proc)
            pairs = [(n, user) for n in range(PER_USER) for user in USERS]
            burst = [message(index + 1, user) for index, (_, user) in enumerate(pairs)]
            for index, body in enumerate(burst):
                if index == KILL_AFTER:
                    procs[0].send_signal(signal.SIGKILL)  # mid-burst, mid-handling
                    await procs[0].wait()
                # In turn; a refused connection goes to the other, as Telegram retries.
                turn = ports[index % 2 :] + ports[: index % 2]
                await deliver(http, turn, body)
            total = len(burst)

            async def settled() -> bool:
                counted = await rows(url, "SELECT COUNT(DISTINCT update_id) FROM interactions")
                waiting = await rows(
                    url, "SELECT COUNT(*) FROM update_inbox WHERE status != 'done'"
                )
                return counted[0][0] >= total and waiting[0][0] == 0

            deadline = time.monotonic() + 120
            while not await settled():
                if time.monotonic() > deadline:
                    state = await rows(
                        url,
                        "SELECT status, outcome, claimed_by, attempts, COUNT(*) FROM update_inbox "
                        "GROUP BY status, outcome, claimed_by, attempts",
                    )
                    counted = await rows(url, "SELECT COUNT(DISTINCT update_id) FROM interactions")
                    log = (tmp_path / f"instance-{ports[1]}.log").read_text(errors="replace")
                    raise AssertionError(
                        f"not every update handled: {counted} {state}\n{log[-3000:]}"
                    )
                assert procs[1].returncode is None
                await asyncio.sleep(0.5)
            await asyncio.sleep(0.5)  # a reply still on its way would be counted
        finally:
            for proc in procs:
                if proc.returncode is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
        # Counted exactly: one interaction per update, each user's counter exact.
        counted = await rows(url, "SELECT COUNT(*), COUNT(DISTINCT update_id) FROM interactions")
        assert counted[0] == (total, total)
        counters = dict(await rows(url, "SELECT user_id, interaction_count FROM user_profiles"))
        assert counters == {f"tg:{user}": PER_USER for user in USERS}
        # Every message answered; twice only for what was in flight at the kill (the
        # Bot API has no idempotency key): at most one per user.
        for user in USERS:
            assert len(api.sent_messages(user)) >= PER_USER
        duplicated = sum(len(api.sent_messages(user)) for user in USERS) - total
        assert duplicated <= len(USERS), duplicated
