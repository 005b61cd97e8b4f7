"""SIGKILL in the middle of a burst, restart, and nothing is lost or counted twice.

Long polling stores every batch in the inbox before the next getUpdates confirms it
(bot/transport/polling.py), so what a killed process took from Telegram is in the database; the
restarted process replays it once the dead one's lease runs out (bot/transport/inbox.py).
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.e2e.conftest import REPO, START_TIMEOUT, BotProcess, bot_env
from tests.fakes.bot_api import FakeBotAPI

pytestmark = pytest.mark.asyncio(loop_scope="module")

USERS = (501, 502, 503, 504)
PER_USER = 50  # 200 messages in all
#: Short leases: the dead process's updates come back within a second.
LEASE_S = "1"
_runs = itertools.count()
#: Every process this module started: killed at the end whatever happened.
_spawned: list[BotProcess] = []


@pytest_asyncio.fixture(loop_scope="module", autouse=True)
async def _no_strays() -> AsyncIterator[None]:
    yield
    for bot in _spawned:
        if bot.running:
            bot.proc.kill()
            await bot.proc.wait()
    _spawned.clear()


async def spawn(api: FakeBotAPI, workdir: Path) -> BotProcess:
    db_path = workdir / "stepan.db"
    stderr_path = workdir / f"stderr-{next(_runs)}.log"
    env = bot_env(api.base_url, f"sqlite+aiosqlite:///{db_path}", STEPAN_INBOX_LEASE_S=LEASE_S)
    with stderr_path.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            cwd=workdir,
            env=env | {"PYTHONPATH": str(REPO)},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=stderr,
            stderr=stderr,
        )
    bot = BotProcess(api, proc, db_path, stderr_path)
    _spawned.append(bot)
    return bot


async def started(api: FakeBotAPI, workdir: Path) -> BotProcess:
    """A new process on the same database, once it polls (its own getUpdates: the
    fake's counters still hold the earlier processes' calls)."""
    calls = api.get_updates_calls
    bot = await spawn(api, workdir)
    await until(lambda: api.get_updates_calls > calls or not bot.running, START_TIMEOUT, "polling")
    assert bot.running, bot.stderr()
    return bot


async def kill(bot: BotProcess) -> None:
    bot.proc.kill()
    await bot.proc.wait()


def replies(api: FakeBotAPI) -> int:
    return sum(len(api.sent_messages(user)) for user in USERS)


async def until(predicate: object, timeout: float, what: str) -> None:  # noqa: ASYNC109
    assert callable(predicate)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def test_sigkill_at_three_points_of_a_200_message_burst(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        first = await spawn(api, tmp_path)
        await first.wait_ready()
        burst = [
            api.push_message(user, f"привіт {n}", first_name="Ганна")
            for n in range(PER_USER)
            for user in USERS
        ]
        total = len(burst)
        # 1. Some replies out, most of the burst stored and waiting.
        await until(lambda: replies(api) >= 20, 60, "20 replies")
        await kill(first)
        kills = 1
        # 2. The next process: killed while it replays and serves the rest.
        second = await started(api, tmp_path)
        at = replies(api)
        await until(lambda: replies(api) >= at + 40, 60, "40 more replies")
        await kill(second)
        kills += 1
        # 3. Killed right after it started polling, before the leases ran out.
        third = await started(api, tmp_path)
        await kill(third)
        kills += 1
        last = await started(api, tmp_path)
        try:
            await until(
                lambda: (
                    last.query("SELECT COUNT(*) FROM interactions")[0][0] >= total
                    and not last.query("SELECT 1 FROM update_inbox WHERE status != 'done'")
                ),
                90,
                "every update handled",
            )
            await asyncio.sleep(0.5)  # a reply still on its way would be counted
        finally:
            assert await last.stop() == 0, last.stderr()
        # Every message taken from Telegram is in the inbox, handled once.
        stored = {row[0] for row in last.query("SELECT update_id FROM update_inbox")}
        assert stored >= set(burst)
        assert api.pending_updates == 0
        # Counted exactly: one interaction per update, each user's counter exact.
        counted = last.query(
            "SELECT COUNT(*), COUNT(DISTINCT update_id) FROM interactions "
            "WHERE update_id IS NOT NULL"
        )[0]
        assert counted == (total, total)
        for user in USERS:
            assert last.interaction_count(user) == PER_USER
        # Every message answered. A reply goes out twice only if a kill lands between
        # Telegram taking it and the inbox row being marked done (the Bot API has no
        # idempotency key): at most one per user in flight per kill.
        for user in USERS:
            assert len(api.sent_messages(user)) >= PER_USER
        duplicated = replies(api) - total
        assert duplicated <= kills * len(USERS), duplicated


async def test_sigkill_between_the_card_and_its_reply_leaves_one_card(tmp_path: Path) -> None:
    """Issue 26 point 5: the card is stored, the Bot API is slow to take it, the process
    dies; the restarted one handles the message again and finds the card it has."""
    farmer = 505
    async with FakeBotAPI() as api:
        first = await spawn(api, tmp_path)
        await first.wait_ready()
        api.hold("sendMessage")
        api.push_message(farmer, "запиши полив 20 мм на полі 3 вчора", first_name="Ганна")
        await until(lambda: api.held > 0, 60, "the card on its way")
        assert first.query("SELECT COUNT(*) FROM operation_drafts") == [(1,)]
        await kill(first)
        api.release("sendMessage")
        last = await started(api, tmp_path)
        try:
            await until(
                lambda: (
                    bool(api.sent_messages(farmer))
                    and not last.query("SELECT 1 FROM update_inbox WHERE status != 'done'")
                ),
                60,
                "the message handled again",
            )
        finally:
            assert await last.stop() == 0, last.stderr()
        assert last.query("SELECT COUNT(*) FROM operation_drafts") == [(1,)]
        cards = {message["text"] for message in api.sent_messages(farmer)}
        assert len(cards) == 1, cards
