"""Circuit breaker states, and the client's use of it (retries, probes, timeouts)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from pipeline.memory.service.breaker import CircuitBreaker
from pipeline.memory.service.client import MAX_ROWS_PER_KEY, MemoryServiceClient
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
        self.calls: list[tuple[str, dict[str, object] | None]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.calls.append((request.url.raw_path.decode(), body))  # as sent: still quoted
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


REFUSALS = [
    (422, "dead"),
    (405, "dead"),
    (400, "dead"),
    (401, "config_error"),
    (403, "config_error"),
]


@pytest.mark.parametrize(("code", "status"), REFUSALS)
async def test_refusals_are_final_without_retry_and_not_an_outage(code: int, status: str) -> None:
    recorder = Recorder(lambda r: httpx.Response(code, json={"detail": "bad"}))
    client = _client(recorder)
    outcome = await client.upsert("tg:1", "k", {})
    assert outcome.status == status and str(code) in (outcome.error or "")
    assert len(recorder.calls) == 1
    assert state(client.breaker) == "closed" and client.breaker.consecutive_failures == 0


async def test_a_config_error_names_the_setting_to_fix() -> None:
    client = _client(Recorder(lambda r: httpx.Response(401, json={"detail": "Invalid token"})))
    await client.upsert("tg:1", "k", {})
    assert client.config_error is not None
    assert "401" in client.config_error and "AGX_MEMORY_SERVICE_JWT_SECRET" in client.config_error


async def test_delete_reads_the_id_then_deletes_by_it_until_the_fact_is_not_found() -> None:
    deleted: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            deleted.append(request.url.path)
            return httpx.Response(200, json={"success": True})
        if deleted:
            return httpx.Response(404, json={"detail": "Fact not found"})
        return httpx.Response(200, json={"id": "f-1", "fact_key": "user:k", "user_id": "x"})

    recorder = Recorder(handler)
    client = _client(recorder)
    assert (await client.delete("tg:1", "user:k")).status == "ok"
    paths = [path for path, _ in recorder.calls]
    assert paths == ["/facts/user%3Ak", "/facts/f-1", "/facts/user%3Ak"]


async def test_delete_of_a_key_that_never_goes_stops_at_the_bound() -> None:
    # A service that keeps answering the fact (a stuck row, endless duplicates).
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            return httpx.Response(200, json={"success": True})
        return httpx.Response(200, json={"id": "f-1", "fact_key": "k", "user_id": "x"})

    recorder = Recorder(handler)
    client = _client(recorder)
    outcome = await client.delete("tg:1", "k")
    assert outcome.status == "failed" and "more than 20 rows" in (outcome.error or "")
    assert len(recorder.calls) == 2 * MAX_ROWS_PER_KEY  # bounded, and not retried at once


@pytest.mark.parametrize(
    ("body", "status"),
    [({"detail": "Not Found"}, "config_error"), ({"detail": "Fact not found"}, "ok")],
)
async def test_only_the_services_own_404_means_the_fact_is_gone(
    body: dict[str, str], status: str
) -> None:
    client = _client(Recorder(lambda r: httpx.Response(404, json=body)))
    outcome = await client.delete("tg:1", "k")
    assert outcome.status == status
    if status == "config_error":
        assert "AGX_MEMORY_SERVICE_URL" in (client.config_error or "")


async def test_delete_of_a_missing_fact_is_success() -> None:
    recorder = Recorder(lambda r: httpx.Response(404, json={"detail": "Fact not found"}))
    client = _client(recorder)
    assert (await client.delete("tg:1", "k")).status == "ok"
    assert recorder.calls == [("/facts/k", None)]


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
        if request.url.path == "/health" and healthy:
            return httpx.Response(200, json={"status": "ok", "service": "memory-service"})
        return httpx.Response(500, json={})

    client = _client(Recorder(handler), clock, threshold=1)
    await client.upsert("tg:1", "k", {})
    assert await client.probe() is False  # still cooling down: not even tried
    clock.advance(30)
    healthy = True
    assert await client.probe() is True
    assert state(client.breaker) == "closed"


async def test_get_facts_is_one_attempt_and_reads_each_key() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/facts/there":
            return httpx.Response(200, json={"fact_key": "there", "fact_value_json": {"v": 1}})
        return httpx.Response(404, json={"detail": "Fact not found"})

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
