"""LLM plumbing: error classes, retries, the worker pool, light replies, the key."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from pipeline.admin.platform import LlmHealth
from pipeline.crew.config import Prompts
from pipeline.crew.llm import (
    LlmClient,
    LlmHandle,
    LlmSettings,
    build_crewai_llm,
    is_transient,
    is_unavailable,
    retrying,
)
from pipeline.crew.pool import BudgetExceeded, WorkerPool
from pipeline.language.catalog import Catalog
from pipeline.profiles import FarmProfile, UserProfile
from pipeline.replies.light import LightRequest, LlmResponder, TemplateResponder
from pipeline.types import DepthDecision
from tests.fakes.llm import ScriptedLLM, no_outbound_connections, scripted


@pytest.fixture(autouse=True)
def no_internet() -> Iterator[None]:
    with no_outbound_connections() as attempts:
        yield
    assert attempts == []


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool(4)
    yield workers
    workers.shutdown()


class _Status(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code


def _chained(outer: Exception, inner: Exception) -> Exception:
    try:
        raise outer from inner
    except Exception as exc:
        return exc


def test_transient_errors() -> None:
    assert is_transient(ConnectionError("refused"))
    assert is_transient(_chained(RuntimeError("wrapped"), ConnectionRefusedError()))
    assert is_transient(_Status(429)) and is_transient(_Status(503))
    assert not is_transient(_Status(400)) and not is_transient(_Status(401))
    assert not is_transient(ValueError("bad output"))
    assert not is_transient(BudgetExceeded("ours"))
    assert is_unavailable(BudgetExceeded("ours")) and is_unavailable(ConnectionError())
    assert not is_unavailable(ValueError())


async def test_retrying_retries_transient_errors_at_most_twice() -> None:
    attempts: list[float] = []

    async def flaky(remaining: float) -> str:
        attempts.append(remaining)
        if len(attempts) < 3:
            raise ConnectionError("refused")
        return "ok"

    assert await retrying(flaky, timeout_s=5, retries=2, backoff_s=0) == "ok"
    assert len(attempts) == 3

    attempts.clear()

    async def down(remaining: float) -> str:
        attempts.append(remaining)
        raise ConnectionError("refused")

    with pytest.raises(ConnectionError):
        await retrying(down, timeout_s=5, retries=2, backoff_s=0)
    assert len(attempts) == 3


async def test_retrying_does_not_retry_a_bad_answer() -> None:
    attempts = 0

    async def bad(remaining: float) -> str:
        nonlocal attempts
        attempts += 1
        raise ValueError("unparseable")

    with pytest.raises(ValueError):
        await retrying(bad, timeout_s=5, retries=2, backoff_s=0)
    assert attempts == 1


async def test_pool_enforces_the_budget_and_carries_the_context(pool: WorkerPool) -> None:
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="none")
    marker.set("request-1")
    assert await pool.run(marker.get, timeout_s=2) == "request-1"
    with pytest.raises(BudgetExceeded):
        await pool.run(lambda: time.sleep(0.5), timeout_s=0.05)


async def test_client_records_health_without_the_message(pool: WorkerPool) -> None:
    health = LlmHealth(configured=True)
    ok = LlmClient(LlmHandle.of(scripted(replies={"": "так"})), pool, health=health)
    assert await ok.complete("system", "user", timeout_s=2) == "так"
    assert health.last_ok is True
    down = LlmClient(
        LlmHandle.of(scripted(fail={"": ValueError("secret-url?key=abc")})), pool, health=health
    )
    with pytest.raises(ValueError):
        await down.complete("system", "user", timeout_s=2)
    assert health.last_ok is False and health.last_error == "ValueError"


def test_the_api_key_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    key = "sk-test-0123456789abcdefSECRET"
    llm = build_crewai_llm(
        LlmSettings(model="qwen2.5:7b", base_url="http://127.0.0.1:9/v1", api_key=SecretStr(key))
    )
    assert llm.model == "qwen2.5:7b" and llm.base_url == "http://127.0.0.1:9/v1"
    assert key not in caplog.text


# --- light replies ----------------------------------------------------------------------


def _light(intent: str, text: str = "привіт") -> LightRequest:
    return LightRequest(
        decision=DepthDecision("light", intent, (), 1.0, "test"),
        profile=UserProfile(user_id="tg:1", name="Іван", interaction_count=3),
        farm=FarmProfile(user_id="tg:1"),
        lang="uk",
        is_operator=False,
        first_contact=False,
        text=text,
    )


def _responder(catalog: Catalog, llm: ScriptedLLM | None, pool: WorkerPool) -> LlmResponder:
    client = LlmClient(LlmHandle.of(llm), pool, retries=0) if llm is not None else None
    return LlmResponder(catalog, client, prompts=Prompts.load().light, timeout_s=0.5)


async def test_light_reply_without_an_llm_is_the_template(
    catalog: Catalog, pool: WorkerPool
) -> None:
    template = TemplateResponder(catalog).answer(_light("greeting"))
    assert await _responder(catalog, None, pool).answer(_light("greeting")) == template


async def test_light_llm_prompt_carries_the_conversation_summaries(
    catalog: Catalog, pool: WorkerPool
) -> None:
    llm = scripted(replies={"": "Привіт, Іване!"})
    responder = _responder(catalog, llm, pool)
    asked: list[str] = []

    async def summaries(user_id: str) -> tuple[str, ...]:
        asked.append(user_id)
        return ("04.05, 10:00–10:05: 2 повідомлення.\nТеми: дані датчиків.",)

    responder.recall = summaries
    await responder.answer(_light("greeting"))
    system = llm.calls[0].system
    assert asked == ["tg:1"] and catalog.text("uk", "recall.prompt_header") in system
    assert "- 04.05, 10:00–10:05: 2 повідомлення.; Теми: дані датчиків." in system
    # Without an LLM the template answers and the summaries are not read.
    offline = _responder(catalog, None, pool)
    offline.recall = summaries
    await offline.answer(_light("greeting"))
    assert asked == ["tg:1"]


async def test_light_reply_from_one_llm_call(catalog: Catalog, pool: WorkerPool) -> None:
    llm = scripted(replies={"": "Привіт, Іване! Як поля?"})
    assert (
        await _responder(catalog, llm, pool).answer(_light("greeting")) == "Привіт, Іване! Як поля?"
    )
    assert llm.call_count == 1
    call = llm.calls[0]
    assert "Іван" in call.system and call.last == "привіт"


@pytest.mark.parametrize(
    "llm",
    [
        scripted(fail={"": ConnectionError("down")}),
        scripted(replies={"": '{"answer": "json"}'}),
        scripted(replies={"": ""}),
        scripted(replies={"": "дуже " * 300}),
        scripted(latency_s=1.0),
    ],
    ids=["error", "json", "empty", "too-long", "too-slow"],
)
async def test_light_reply_falls_back_to_the_template(
    catalog: Catalog, pool: WorkerPool, llm: ScriptedLLM
) -> None:
    template = TemplateResponder(catalog).answer(_light("thanks", "дякую"))
    try:
        assert await _responder(catalog, llm, pool).answer(_light("thanks", "дякую")) == template
    finally:
        llm.release()


async def test_facts_stay_templates(catalog: Catalog, pool: WorkerPool) -> None:
    llm = scripted(replies={"": "Ви адміністратор!"})
    responder = _responder(catalog, llm, pool)
    for intent in ("whoami", "help"):
        assert await responder.answer(_light(intent)) == TemplateResponder(catalog).answer(
            _light(intent)
        )
    assert llm.call_count == 0


async def test_concurrent_light_replies(catalog: Catalog, pool: WorkerPool) -> None:
    llm = scripted(replies={"": "Гаразд!"}, latency_s=0.05)
    responder = _responder(catalog, llm, pool)
    answers = await asyncio.gather(*(responder.answer(_light("ack", "ок")) for _ in range(6)))
    assert answers == ["Гаразд!"] * 6


def test_the_guard_refuses_the_internet() -> None:
    import socket

    with no_outbound_connections() as attempts, pytest.raises(OSError):
        socket.create_connection(("203.0.113.7", 443), timeout=0.2)
    assert attempts == ["203.0.113.7"]


def test_building_the_bot_without_an_llm_does_not_import_crewai() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from bot.wiring.factory import build_pipeline;"
        "from db.engine import create_engine; from db.uow import Database;"
        "from tests.conftest import make_settings;"
        "url = 'sqlite+aiosqlite:////tmp/unused.db';"
        "build_pipeline(make_settings(url), Database.of(create_engine(url)));"
        "print('crewai' in sys.modules)"
    )
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=repo,
    )
    assert result.stdout.strip() == "False"
