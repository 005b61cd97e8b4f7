"""Circuit breaker states, and the client's use of it (retries, probes, timeouts)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from pipeline.memory.breaker import CircuitBreaker
from pipeline.memory.client import MemoryServiceClient
from tests.fakes.memory_service import ManualClock


def state(breaker: CircuitBreaker) -> str:
    # A function call, so mypy does not narrow the property between asserts.
    return breaker.state


def _breaker(clock: ManualClock, threshold: int = 3, cooldown: float = 30.0) -> CircuitBreaker:
    return CircuitBreaker(failure_threshold=threshold, cooldown_s=cooldown, clock=clock)


def test_opens_after_consecutive_failures_only() -> None:
    breaker = _breaker(ManualClock())
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()  # resets the run
    breaker.record_failure()
    breaker.record_failure()
    assert state(breaker) == "closed"
    breaker.record_failure()
    assert state(breaker) == "open"
    assert breaker.acquire(probe_ok=True) is None


def test_one_probe_after_the_cooldown_and_success_closes() -> None:
    clock = ManualClock()
    breaker = _breaker(clock, threshold=1)
    breaker.record_failure()
    clock.advance(29.9)
    assert breaker.acquire(probe_ok=True) is None
    clock.advance(0.1)
    assert state(breaker) == "half_open"
    assert breaker.acquire(probe_ok=False) is None  # a conversation never probes
    assert breaker.acquire(probe_ok=True) == "probe"
    assert breaker.acquire(probe_ok=True) is None  # exactly one probe at a time
    breaker.record_success()
    assert state(breaker) == "closed"
    assert breaker.acquire(probe_ok=False) == "call"


def test_failed_probe_opens_for_another_full_cooldown() -> None:
    clock = ManualClock()
    breaker = _breaker(clock, threshold=1)
    breaker.record_failure()
    clock.advance(30)
    assert breaker.acquire(probe_ok=True) == "probe"
    breaker.record_failure()
    assert state(breaker) == "open"
    clock.advance(29)
    assert breaker.acquire(probe_ok=True) is None
    clock.advance(1)
    assert breaker.acquire(probe_ok=True) == "probe"


def test_released_probe_lets_the_next_caller_probe() -> None:
    clock = ManualClock()
    breaker = _breaker(clock, threshold=1)
    breaker.record_failure()
    clock.advance(30)
    assert breaker.acquire(probe_ok=True) == "probe"
    breaker.release_probe()
    assert breaker.acquire(probe_ok=True) == "probe"


# -- the client over a mock transport ---------------------------------------------------

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.calls: list[tuple[str, dict[str, object]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls.append((request.url.path, json.loads(request.content)))
        return self.handler(request)


def _client(
    recorder: Recorder | Callable[[httpx.Request], object],
    clock: ManualClock | None = None,
    *,
    threshold: int = 3,
    timeout_s: float = 2.0,
) -> MemoryServiceClient:
    transport = httpx.MockTransport(recorder)  # type: ignore[arg-type]
    breaker = _breaker(clock or ManualClock(), threshold=threshold)
    return MemoryServiceClient(
        "http://memory.test/",
        httpx.AsyncClient(transport=transport),
        breaker=breaker,
        attempts=3,
        backoff_s=0,
        timeout_s=timeout_s,
    )


async def test_upsert_sends_the_contract_body() -> None:
    recorder = Recorder(lambda r: httpx.Response(200, json={"status": "ok"}))
    client = _client(recorder)
    outcome = await client.upsert("tg:42", "user_profile:agromatrix:tg:42", {"a": 1})
    assert outcome.status == "ok"
    assert recorder.calls == [
        (
            "/facts/upsert",
            {
                "user_id": "stepan:tg:42",
                "fact_key": "user_profile:agromatrix:tg:42",
                "fact_value_json": {"a": 1},
            },
        )
    ]


async def test_upsert_retries_server_errors_then_succeeds() -> None:
    answers = iter([503, 500, 200])
    recorder = Recorder(lambda r: httpx.Response(next(answers), json={}))
    client = _client(recorder)
    assert (await client.upsert("tg:1", "k", {})).status == "ok"
    assert len(recorder.calls) == 3
    assert client.breaker.consecutive_failures == 0


async def test_upsert_gives_up_after_its_attempts_and_counts_one_failure() -> None:
    recorder = Recorder(lambda r: httpx.Response(500, json={}))
    client = _client(recorder)
    outcome = await client.upsert("tg:1", "k", {})
    assert outcome.status == "failed" and outcome.error == "HTTP 500"
    assert len(recorder.calls) == 3
    assert client.breaker.consecutive_failures == 1


async def test_a_2xx_that_is_not_a_json_object_is_not_success() -> None:
    recorder = Recorder(lambda r: httpx.Response(200, content=b"OK"))
    client = _client(recorder)
    assert (await client.upsert("tg:1", "k", {})).status == "failed"


async def test_client_errors_are_rejected_without_retry() -> None:
    recorder = Recorder(lambda r: httpx.Response(422, json={"detail": "bad"}))
    client = _client(recorder)
    outcome = await client.upsert("tg:1", "k", {})
    assert outcome.status == "rejected" and "422" in (outcome.error or "")
    assert len(recorder.calls) == 1
    assert state(client.breaker) == "closed" and client.breaker.consecutive_failures == 0


async def test_delete_of_a_missing_fact_is_success() -> None:
    recorder = Recorder(lambda r: httpx.Response(404, json={"detail": "not found"}))
    client = _client(recorder)
    assert (await client.delete("tg:1", "k")).status == "ok"
    assert recorder.calls == [("/facts/delete", {"user_id": "stepan:tg:1", "fact_key": "k"})]


async def test_open_breaker_sends_nothing() -> None:
    recorder = Recorder(lambda r: httpx.Response(500, json={}))
    client = _client(recorder, threshold=1)
    await client.upsert("tg:1", "k", {})
    calls = len(recorder.calls)
    assert state(client.breaker) == "open"
    assert (await client.upsert("tg:1", "k", {})).status == "skipped"
    assert await client.get_facts("tg:1", ["k"]) is None
    assert len(recorder.calls) == calls


async def test_probe_is_a_single_attempt() -> None:
    clock = ManualClock()
    recorder = Recorder(lambda r: httpx.Response(500, json={}))
    client = _client(recorder, clock, threshold=1)
    await client.upsert("tg:1", "k", {})
    clock.advance(30)
    before = len(recorder.calls)
    assert (await client.upsert("tg:1", "k", {})).status == "failed"
    assert len(recorder.calls) == before + 1
    assert state(client.breaker) == "open"


async def test_probe_without_payload_closes_the_breaker() -> None:
    clock = ManualClock()
    healthy = False

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404 if healthy else 500, json={})

    client = _client(Recorder(handler), clock, threshold=1)
    await client.upsert("tg:1", "k", {})
    assert await client.probe() is False  # still cooling down: not even tried
    clock.advance(30)
    healthy = True
    assert await client.probe() is True
    assert state(client.breaker) == "closed"


async def test_get_facts_is_one_attempt_and_reads_each_key() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        key = json.loads(request.content)["fact_key"]
        if key == "there":
            return httpx.Response(200, json={"fact_value_json": {"v": 1}})
        return httpx.Response(404, json={})

    recorder = Recorder(handler)
    client = _client(recorder)
    assert await client.get_facts("tg:1", ["there", "missing"]) == {
        "there": {"v": 1},
        "missing": None,
    }
    recorder.handler = lambda r: httpx.Response(500, json={})
    before = len(recorder.calls)
    assert await client.get_facts("tg:1", ["there"]) is None
    assert len(recorder.calls) == before + 1  # no retry on the conversation path


async def test_get_facts_drops_garbage_and_counts_it_as_a_failure() -> None:
    recorder = Recorder(lambda r: httpx.Response(200, json={"fact_value_json": "nope"}))
    client = _client(recorder)
    assert await client.get_facts("tg:1", ["k"]) == {"k": None}
    assert client.breaker.consecutive_failures == 1


async def test_get_facts_never_outlives_its_timeout() -> None:
    release = asyncio.Event()

    async def hang(request: httpx.Request) -> httpx.Response:
        await release.wait()
        return httpx.Response(200, json={})

    client = _client(hang, timeout_s=0.05)
    result = await asyncio.wait_for(client.get_facts("tg:1", ["a", "b"]), 10)
    release.set()
    assert result is None
    assert client.breaker.consecutive_failures == 1


@pytest.mark.parametrize("threshold", [0, -1])
def test_threshold_must_be_positive(threshold: int) -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(failure_threshold=threshold)
