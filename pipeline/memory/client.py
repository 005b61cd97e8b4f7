"""HTTP client for the memory-service (the contract is docs/memory-service.md).

Two kinds of caller, two policies:

* a conversation hydrating a user SQL does not know (``get_facts``): one attempt,
  bounded by the timeout, and nothing at all while the breaker is not closed;
* the outbox flush (``upsert`` / ``delete``): retries with backoff, and it is the one
  that probes a half-open breaker.

Nothing here raises for a network or protocol problem: callers get an ``Outcome`` or
None and carry on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from pipeline.memory.breaker import CircuitBreaker, Permit

logger = logging.getLogger(__name__)

#: Seed 3.2 / DESIGN.md: the memory-service gets 2 s per call.
TIMEOUT_S = 2.0
ATTEMPTS = 3
BACKOFF_S = 0.5
#: A key no profile ever has; reading it is a harmless health probe (404 = healthy).
PROBE_FACT_KEY = "probe:agromatrix:stepan"

Status = Literal["ok", "rejected", "failed", "skipped"]


def memory_user_id(user_id: str) -> str:
    """Seed 3.2: Stepan's facts live under their own user ids, apart from other agents."""
    return f"stepan:{user_id}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """ok: done. rejected: the service refused it for good (4xx) while being healthy.
    failed: transport error, timeout, 5xx or garbage after all attempts.
    skipped: the breaker is open, nothing was sent."""

    status: Status
    error: str | None = None


class MemoryServiceClient:
    def __init__(
        self,
        base_url: str,
        http: httpx.AsyncClient,
        *,
        breaker: CircuitBreaker | None = None,
        timeout_s: float = TIMEOUT_S,
        attempts: int = ATTEMPTS,
        backoff_s: float = BACKOFF_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = http
        self.breaker = breaker or CircuitBreaker()
        self._timeout = timeout_s
        self._attempts = max(1, attempts)
        self._backoff = backoff_s

    # -- reads (conversation path) -------------------------------------------------

    async def get_facts(
        self, user_id: str, fact_keys: Sequence[str]
    ) -> dict[str, dict[str, Any] | None] | None:
        """Each key's ``fact_value_json`` (None: not there, or not a JSON object).

        None when the service was not asked (breaker not closed) or did not answer in
        time. One attempt for all keys together, never longer than the timeout, and
        never the breaker's probe: a conversation is waiting.
        """
        if self.breaker.acquire(probe_ok=False) is None:
            return None
        body_user = memory_user_id(user_id)
        try:
            # Children never raise, so gather cannot leave one running on its own;
            # the timeout cancels all of them together.
            async with asyncio.timeout(self._timeout):
                answers = await asyncio.gather(
                    *(self._get_one(body_user, key) for key in fact_keys)
                )
        except TimeoutError:
            answers = [(None, "timeout")]
        errors = [verdict for _, verdict in answers if verdict != "ok"]
        if not errors:
            self.breaker.record_success()
            return dict(zip(fact_keys, (value for value, _ in answers), strict=True))
        self.breaker.record_failure()
        logger.warning("memory-service get failed user=%s: %s", user_id, errors[0])
        if all(verdict == "ok" or verdict == "garbage" for _, verdict in answers):
            # It answered, only not sensibly: use what was well-formed, drop the rest.
            return dict(zip(fact_keys, (value for value, _ in answers), strict=True))
        return None

    async def _get_one(self, user_id: str, fact_key: str) -> tuple[dict[str, Any] | None, str]:
        """(value, verdict) for one key; verdict "ok", "garbage" or an error. Never raises
        for network trouble."""
        try:
            response = await self._post("/facts/get", {"user_id": user_id, "fact_key": fact_key})
        except (TimeoutError, httpx.HTTPError) as exc:
            return None, _describe(exc)
        if response.status_code == 404:
            return None, "ok"
        if response.status_code != 200:
            return None, f"HTTP {response.status_code}"
        try:
            body = response.json()
        except ValueError:
            return None, "garbage"
        value = body.get("fact_value_json") if isinstance(body, dict) else None
        if not isinstance(value, dict):
            return None, "garbage"
        return value, "ok"

    async def probe(self) -> bool:
        """One health check, used by the flush when it has nothing else to send and the
        breaker wants a probe. True when the service answered sanely."""
        permit = self.breaker.acquire(probe_ok=True)
        if permit is None:
            return False
        body = {"user_id": memory_user_id("probe"), "fact_key": PROBE_FACT_KEY}
        try:
            response = await self._post("/facts/get", body)
            healthy = response.status_code in (200, 404)
        except (TimeoutError, httpx.HTTPError) as exc:
            logger.info("memory-service probe failed: %s", _describe(exc))
            healthy = False
        except BaseException:
            self.breaker.release_probe()
            raise
        if healthy:
            self.breaker.record_success()
        else:
            self.breaker.record_failure()
        return healthy

    # -- writes (outbox flush) -----------------------------------------------------

    async def upsert(self, user_id: str, fact_key: str, value: dict[str, Any]) -> Outcome:
        body = {"user_id": memory_user_id(user_id), "fact_key": fact_key, "fact_value_json": value}
        return await self._write("/facts/upsert", body)

    async def delete(self, user_id: str, fact_key: str) -> Outcome:
        body = {"user_id": memory_user_id(user_id), "fact_key": fact_key}
        return await self._write("/facts/delete", body)

    async def _write(self, path: str, body: dict[str, Any]) -> Outcome:
        permit = self.breaker.acquire(probe_ok=True)
        if permit is None:
            return Outcome("skipped", "circuit open")
        try:
            outcome = await self._write_with_retries(path, body, permit)
        except BaseException:
            if permit == "probe":
                self.breaker.release_probe()
            raise
        if outcome.status == "failed":
            self.breaker.record_failure()
        else:
            # "rejected" too: the service is up and said no to this one request.
            self.breaker.record_success()
        return outcome

    async def _write_with_retries(self, path: str, body: dict[str, Any], permit: Permit) -> Outcome:
        # A probe is exactly one call: a service that is still down must not be
        # hammered the moment the cool-down ends.
        attempts = 1 if permit == "probe" else self._attempts
        error = "no attempt"
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = await self._post(path, body)
            except (TimeoutError, httpx.HTTPError) as exc:
                error = _describe(exc)
                continue
            status = response.status_code
            if path == "/facts/delete" and status == 404:
                return Outcome("ok")  # already gone is what a delete wants
            if 200 <= status < 300:
                if _is_json_object(response):
                    return Outcome("ok")
                error = "2xx with a body that is not a JSON object"
                continue
            if status >= 500 or status in (408, 429):
                error = f"HTTP {status}"
                continue
            return Outcome("rejected", f"HTTP {status}: {response.text[:120]}")
        logger.warning("memory-service %s failed after %d attempts: %s", path, attempts, error)
        return Outcome("failed", error)

    async def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        # asyncio.timeout bounds the whole exchange; httpx's own timeouts are per
        # phase, so a server trickling bytes could otherwise take far longer.
        async with asyncio.timeout(self._timeout):
            return await self._http.post(self.base_url + path, json=body, timeout=self._timeout)


def _is_json_object(response: httpx.Response) -> bool:
    try:
        return isinstance(response.json(), dict)
    except ValueError:
        return False


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timeout"
    return f"{type(exc).__name__}: {exc}"[:200]
