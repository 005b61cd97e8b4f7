"""End-to-end fixtures: the real bot process (``python -m bot run``) against FakeBotAPI.

Starting a Python process that imports aiogram and SQLAlchemy takes several seconds,
so test modules share ONE bot process (module-scoped fixtures on a module-scoped event
loop)::

    pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

    async def test_x(fake_api: FakeBotAPI, bot_process: BotProcess) -> None: ...

``start_bot`` starts more processes (e.g. against their own FakeBotAPI). Every
process gets a temporary SQLite database and is stopped with SIGTERM at teardown,
which must end it with exit code 0 within ``STOP_TIMEOUT`` seconds. When an e2e test
fails, the stderr of the bot processes it used is attached to the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.fakes.bot_api import FakeBotAPI

REPO = Path(__file__).resolve().parents[2]
TOKEN = "123456:TEST-token"
#: Seconds the bot may take from exec to its first getUpdates (imports + migrations):
#: seconds on an idle machine, over a minute on a loaded 2-core one (imports alone 40 s).
START_TIMEOUT = 180.0
#: Seconds the bot may take to exit after SIGTERM.
STOP_TIMEOUT = 15.0

_E2E_DIR = Path(__file__).resolve().parent


class BotProcess:
    """A running ``python -m bot run`` and what a test needs to look at it."""

    def __init__(
        self,
        api: FakeBotAPI,
        proc: asyncio.subprocess.Process,
        db_path: Path,
        stderr_path: Path,
    ) -> None:
        self.api = api
        self.proc = proc
        self.db_path = db_path
        self.stderr_path = stderr_path

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    async def wait_ready(self, timeout: float = START_TIMEOUT) -> None:  # noqa: ASYNC109
        """Until the bot has set its commands, called getMe and started long polling."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (
            self.api.get_updates_calls > 0
            and self.api.calls("getMe")
            and self.api.calls("setMyCommands")
        ):
            if not self.running:
                raise AssertionError(
                    f"bot exited with code {self.returncode} before polling; "
                    f"stderr:\n{self.stderr()}"
                )
            if loop.time() > deadline:
                raise AssertionError(
                    f"bot did not start polling within {timeout}s; stderr:\n{self.stderr()}"
                )
            await asyncio.sleep(0.05)

    async def stop(self, timeout: float = STOP_TIMEOUT) -> int:  # noqa: ASYNC109
        """SIGTERM, then wait for the exit code (SIGKILL and fail after ``timeout``)."""
        if self.running:
            self.proc.send_signal(signal.SIGTERM)
        try:
            async with asyncio.timeout(timeout):
                return await self.proc.wait()
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            raise AssertionError(
                f"bot did not exit within {timeout}s of SIGTERM; stderr:\n{self.stderr()}"
            ) from None

    # ------------------------------------------------------------------ database

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Read the bot's SQLite database (WAL: safe while the bot writes). The
        connection is closed at once: one left open keeps the shared-memory index
        mapped, and a test that then changes the files (a power loss) would read that."""
        with contextlib.closing(sqlite3.connect(self.db_path, timeout=30)) as conn:
            return conn.execute(sql, params).fetchall()

    def user_row(self, telegram_id: int) -> dict[str, Any] | None:
        """The user_profiles row of a Telegram user, or None."""
        with contextlib.closing(sqlite3.connect(self.db_path, timeout=30)) as conn:
            conn.row_factory = sqlite3.Row
            row = conn.execute(
                "SELECT * FROM user_profiles WHERE user_id = ?", (f"tg:{telegram_id}",)
            ).fetchone()
            return dict(row) if row is not None else None

    def interaction_count(self, telegram_id: int) -> int:
        row = self.user_row(telegram_id)
        return int(row["interaction_count"]) if row is not None else 0

    async def wait_user(
        self,
        telegram_id: int,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = 10.0,  # noqa: ASYNC109
    ) -> dict[str, Any]:
        """Poll the database until the user's row matches ``predicate``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            row = self.user_row(telegram_id)
            if row is not None and predicate(row):
                return row
            if loop.time() > deadline:
                raise AssertionError(f"user tg:{telegram_id} never matched; last row: {row}")
            await asyncio.sleep(0.05)


StartBot = Callable[..., Awaitable[BotProcess]]

#: Processes started for the current module; used to attach stderr to failed reports.
_started: list[BotProcess] = []


def bot_env(api_url: str, database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STEPAN_", "AGX_"))}
    env.update(
        STEPAN_BOT_TOKEN=TOKEN,
        STEPAN_TELEGRAM_API_URL=api_url,
        STEPAN_DATABASE_URL=database_url,
        STEPAN_LOG_LEVEL="WARNING",
        # Bursts of 20-200 messages from one user test ordering and crashes here;
        # throttling has its own tests (tests/integration/test_throttle.py).
        STEPAN_THROTTLE_BURST="100000",
        # No forecast source: the bot process never reaches the internet.
        STEPAN_WEATHER_URL="off",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def fake_api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI() as api:
        yield api


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def start_bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[StartBot]:
    """A factory: ``await start_bot(api)`` starts a bot process against ``api`` with a
    fresh SQLite database and waits until it polls (``wait=False``: returns at once;
    call ``wait_ready()`` later, e.g. to start two processes in parallel). Extra
    keyword arguments become environment variables. All processes it started are
    stopped at module teardown, and each must exit with code 0."""
    processes: list[BotProcess] = []

    async def start(api: FakeBotAPI, *, wait: bool = True, **env: str) -> BotProcess:
        workdir = tmp_path_factory.mktemp("bot")
        db_path = workdir / "stepan.db"
        stderr_path = workdir / "stderr.log"
        with stderr_path.open("wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                "run",
                cwd=workdir,  # no stray .env from the repo; the package comes via PYTHONPATH
                env=bot_env(api.base_url, f"sqlite+aiosqlite:///{db_path}", **env)
                | {"PYTHONPATH": str(REPO)},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
            )
        bot = BotProcess(api, proc, db_path, stderr_path)
        processes.append(bot)
        _started.append(bot)
        if wait:
            await bot.wait_ready()
        return bot

    try:
        yield start
    finally:
        failures = []
        for bot in processes:
            code = await bot.stop()
            if code != 0:
                failures.append(f"pid {bot.pid} exited with {code}; stderr:\n{bot.stderr()}")
        _started.clear()
        assert not failures, "\n".join(failures)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def bot_process(fake_api: FakeBotAPI, start_bot: StartBot) -> BotProcess:
    """The module's shared bot process, polling ``fake_api``."""
    return await start_bot(fake_api)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _E2E_DIR in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed and _E2E_DIR in Path(str(item.path)).parents:
        for bot in _started:
            tail = bot.stderr()[-20_000:]
            report.sections.append((f"bot process {bot.pid} stderr", tail or "(empty)"))
    return report
