"""HTTP client for the memory-service (the contract: docs/memory-service.md, which is
the real service's ``services/memory-service/app/main.py``).

Two kinds of caller, two policies:

* a conversation hydrating a user SQL does not know (``get_facts``): one attempt,
  bounded by the timeout, and nothing at all while the breaker is not closed;
* the outbox flush (``upsert`` / ``delete`` / ``read`` / summaries): retries with
  backoff, and it is the one that probes a half-open breaker (``GET /health``).

What a status means (``verdict``): 2xx done; 404 "the service has no copy" only
when its body is the service's own ``{"detail": "Fact not found"}`` ("Summary not
found" for summaries): any other 404 (FastAPI's ``{"detail": "Not Found"}`` for a
route it lacks: a wrong base path such as ``.../api``) is a configuration error that
names ``AGX_MEMORY_SERVICE_URL``; 401/403 a configuration error (the row is kept,
operators are told which setting to fix); 408/429/5xx and network trouble an outage
(retried, counted by the breaker); any other answer (400, 405, 422, a redirect)
Stepan's bug or a contract change (the row is dead-lettered). Nothing here raises
for a network or protocol problem.

The service has no unique key on (user, key): two upserts that race both insert, and
``GET /facts/{fact_key}`` answers the first row. So a delete repeats GET and
``DELETE /facts/{id}`` until the service says "Fact not found" (``delete``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import httpx

from pipeline.memory.service.auth import Credentials
from pipeline.memory.service.breaker import CircuitBreaker, Permit

logger = logging.getLogger(__name__)

#: Seed 3.2 / DESIGN.md: the memory-service gets 2 s per call.
TIMEOUT_S = 2.0
ATTEMPTS = 3
BACKOFF_S = 0.5
#: A delete removes at most this many rows of one key per attempt (duplicates).
MAX_ROWS_PER_KEY = 20
#: The service's own 404 details: only these mean "no such fact / summary".
FACT_NOT_FOUND = "Fact not found"
SUMMARY_NOT_FOUND = "Summary not found"
#: The setting to fix when the service answers a route it does not have.
URL_SETTING = "AGX_MEMORY_SERVICE_URL"

Verdict = Literal["ok", "absent", "config_error", "dead", "failed"]
Status = Literal["ok", "config_error", "dead", "failed", "skipped"]


def memory_user_id(user_id: str) -> str:
    """Seed 3.2: Stepan's facts live under their own user ids, apart from other agents."""
    return f"stepan:{user_id}"


def verdict(status_code: int) -> Verdict:
    """What an HTTP status means for Stepan (module docstring)."""
    if 200 <= status_code < 300:
        return "ok"
    if status_code == 404:
        return "absent"
    if status_code in (401, 403):
        return "config_error"
    if status_code in (408, 429) or status_code >= 500:
        return "failed"
    return "dead"


@dataclass(frozen=True, slots=True)
class Outcome:
    """ok: done (``value`` carries what a read or a create returned).
    config_error: 401/403, the service refuses Stepan's credentials.
    dead: the service will never accept this request as it is (400/405/422 ...).
    failed: transport error, timeout, 408/429/5xx or garbage after all attempts.
    skipped: the breaker is open, nothing was sent."""

    status: Status
    error: str | None = None
    value: Any = None


class Retryable(Exception):
    """One attempt failed in a way worth another (408/429/5xx, garbage)."""


class MemoryServiceClient:
    def __init__(
        self,
        base_url: str,
        http: httpx.AsyncClient,
        *,
        credentials: Credentials | None = None,
        team_id: str | None = None,
        breaker: CircuitBreaker | None = None,
        timeout_s: float = TIMEOUT_S,
        attempts: int = ATTEMPTS,
        backoff_s: float = BACKOFF_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = http
        self.credentials = credentials or Credentials()
        #: The team dialog summaries belong to (None: summaries are not kept remotely).
        self.team_id = team_id
        self.breaker = breaker or CircuitBreaker()
        self._timeout = timeout_s
        self._attempts = max(1, attempts)
        self._backoff = backoff_s
        #: The last 401/403 ("HTTP 401: ... - fix AGX_..."), None once a call succeeds.
        self.config_error: str | None = None
        #: The last refused request ("HTTP 405 on GET /facts/{fact_key}: ...").
        self.last_refusal = "no refusal"

    # -- the wire ----------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        user_id: str,
        *,
        json: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        """One call made for ``user_id`` (Stepan's id; the token names its memory user).
        Raises TimeoutError or httpx.HTTPError on network trouble."""
        headers = self.credentials.headers(memory_user_id(user_id))
        # asyncio.timeout bounds the whole exchange; httpx's own timeouts are per
        # phase, so a server trickling bytes could otherwise take far longer.
        async with asyncio.timeout(self._timeout):
            return await self._http.request(
                method,
                self.base_url + path,
                json=json,
                params=params,
                headers=headers,
                timeout=self._timeout,
            )

    def check(
        self, response: httpx.Response, what: str, *, not_found: str | None = None
    ) -> Verdict:
        """The response's verdict; remembers and logs a configuration error, raises
        Retryable for an outage so the caller's retry loop takes another turn.
        ``not_found``: the detail of the route's own 404 (None: no 404 is "absent")."""
        found = verdict(response.status_code)
        if found == "absent" and (not_found is None or _detail(response) != not_found):
            found = "config_error"  # a route the service lacks: the URL is wrong
        if found == "failed":
            raise Retryable(f"HTTP {response.status_code}")
        if found in ("config_error", "dead"):
            self.last_refusal = self.refusal(response, what)
        if found == "config_error":
            code = response.status_code
            setting = URL_SETTING if code == 404 else self.credentials.refused(code)
            self.config_error = f"HTTP {code} on {what}: {_detail(response)} - check {setting}"
            logger.error("memory-service configuration error: %s", self.config_error)
        elif found == "ok":
            self.config_error = None
        return found

    def refusal(self, response: httpx.Response, what: str) -> str:
        return f"HTTP {response.status_code} on {what}: {_detail(response)}"

    # -- reads (conversation path) -----------------------------------------------------

    async def get_facts(
        self, user_id: str, fact_keys: Sequence[str]
    ) -> dict[str, dict[str, Any] | None] | None:
        """Each key's ``fact_value_json`` (None: the service has no such fact).

        None when the answer is unknown: the breaker is not closed, the service did not
        answer in time, or it refused (401/403/405 ...). One attempt for all keys
        together, never longer than the timeout, and never the breaker's probe: a
        conversation is waiting.
        """
        if self.breaker.acquire(probe_ok=False) is None:
            return None
        try:
            # Children never raise, so gather cannot leave one running on its own;
            # the timeout cancels all of them together.
            async with asyncio.timeout(self._timeout):
                answers = await asyncio.gather(*(self._get_once(user_id, k) for k in fact_keys))
        except TimeoutError:
            answers = [(None, "timeout")]
        problems = [found for _, found in answers if found not in ("ok", "absent")]
        if not problems:
            self.breaker.record_success()
            return dict(zip(fact_keys, (value for value, _ in answers), strict=True))
        outage = [p for p in problems if p not in ("config_error", "dead")]
        if outage:
            self.breaker.record_failure()
        else:
            self.breaker.record_success()  # it answered: a refusal is not an outage
        logger.warning("memory-service get failed user=%s: %s", user_id, problems[0])
        if all(found in ("ok", "absent", "garbage") for _, found in answers):
            # It answered, only not sensibly: use what was well-formed, drop the rest.
            return dict(zip(fact_keys, (value for value, _ in answers), strict=True))
        return None

    async def _get_once(self, user_id: str, fact_key: str) -> tuple[dict[str, Any] | None, str]:
        try:
            body, found = await self._read_fact(user_id, fact_key)
        except (TimeoutError, httpx.HTTPError, Retryable) as exc:
            return None, _describe(exc)
        if body is None:
            return None, found
        value = body.get("fact_value_json")
        return (value, "ok") if isinstance(value, dict) else (None, "garbage")

    async def _read_fact(self, user_id: str, fact_key: str) -> tuple[dict[str, Any] | None, str]:
        """(the fact's JSON body, "ok") / (None, "absent" | "garbage" | a refusal).
        Raises Retryable or a network error for an outage."""
        response = await self.request("GET", fact_path(fact_key), user_id)
        found = self.check(response, "GET /facts/{fact_key}", not_found=FACT_NOT_FOUND)
        if found != "ok":
            return None, found
        body = _json_object(response)
        if body is None or body.get("fact_key", fact_key) != fact_key:
            return None, "garbage"
        return body, "ok"

    # -- the flush's calls: retried, the breaker's probe -------------------------------

    async def probe(self) -> bool:
        """``GET /health`` as the breaker's single probe (the flush calls it when it has
        nothing else to send). True when the service said it is ok."""
        permit = self.breaker.acquire(probe_ok=True)
        if permit is None:
            return False
        try:
            async with asyncio.timeout(self._timeout):
                response = await self._http.get(self.base_url + "/health", timeout=self._timeout)
            body = _json_object(response)
            healthy = response.status_code == 200 and body is not None
            healthy = healthy and body is not None and body.get("status") == "ok"
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

    async def health(self) -> str:
        """``GET /health`` once, outside the breaker (for an operator's status): "ok",
        or what went wrong."""
        try:
            async with asyncio.timeout(self._timeout):
                response = await self._http.get(self.base_url + "/health", timeout=self._timeout)
        except (TimeoutError, httpx.HTTPError) as exc:
            return _describe(exc)
        body = _json_object(response)
        if response.status_code == 200 and body is not None and body.get("status") == "ok":
            return "ok"
        hint = f" - check {URL_SETTING} (not the service's base path?)"
        return f"HTTP {response.status_code}: {_detail(response)}" + (
            hint if response.status_code == 404 else ""
        )

    async def read(self, user_id: str, fact_keys: Sequence[str]) -> Outcome:
        """The flush's read (before merging a profile made while the service's copy was
        unknown): ``value`` maps each key to its ``fact_value_json`` or None."""

        async def attempt() -> Outcome:
            values: dict[str, dict[str, Any] | None] = {}
            for key in fact_keys:
                body, found = await self._read_fact(user_id, key)
                if found == "garbage":
                    raise Retryable("2xx with a body that is not a fact")
                if found in ("config_error", "dead"):
                    return Outcome(
                        _final(found), self.config_error or "GET /facts/{fact_key} refused"
                    )
                value = body.get("fact_value_json") if body is not None else None
                values[key] = value if isinstance(value, dict) else None
            return Outcome("ok", value=values)

        return await self.run(attempt)

    async def upsert(self, user_id: str, fact_key: str, value: dict[str, Any]) -> Outcome:
        # No team_id: the service then matches the fact with team_id IS NULL.
        body = {"user_id": memory_user_id(user_id), "fact_key": fact_key, "fact_value_json": value}

        async def attempt() -> Outcome:
            response = await self.request("POST", "/facts/upsert", user_id, json=body)
            return self.answer(response, "POST /facts/upsert")

        return await self.run(attempt)

    async def delete(self, user_id: str, fact_key: str) -> Outcome:
        """Delete every row of ``fact_key`` (the service may hold duplicates): read one
        for its id, delete it by id, and again, until the service answers its own
        "Fact not found"; only that confirms the delete. At most ``MAX_ROWS_PER_KEY``
        rows per attempt (more: failed, the next flush goes on)."""

        async def attempt() -> Outcome:
            for _ in range(MAX_ROWS_PER_KEY):
                body, found = await self._read_fact(user_id, fact_key)
                if found == "absent":
                    return Outcome("ok")
                if found == "garbage":
                    raise Retryable("2xx with a body that is not a fact")
                if found != "ok" or body is None:
                    return Outcome(_final(found), self.last_refusal)
                outcome = await self._delete_row(user_id, body)
                if outcome.status != "ok":
                    return outcome
            return Outcome("failed", f"more than {MAX_ROWS_PER_KEY} rows of {fact_key}")

        return await self.run(attempt)

    async def _delete_row(self, user_id: str, body: dict[str, Any]) -> Outcome:
        """``DELETE /facts/{id}`` of one row; its own 404 is fine (gone meanwhile)."""
        fact_id = body.get("id")
        if not isinstance(fact_id, str) or not fact_id:
            raise Retryable("a fact without an id")
        response = await self.request("DELETE", f"/facts/{quote(fact_id, safe='')}", user_id)
        what = "DELETE /facts/{fact_id}"
        found = self.check(response, what, not_found=FACT_NOT_FOUND)
        return Outcome("ok") if found == "absent" else self.answer(response, what, found)

    def answer(self, response: httpx.Response, what: str, found: Verdict | None = None) -> Outcome:
        """A write's answer: a 2xx needs a JSON object body (else it is retried).
        ``found``: the verdict when the caller already checked the response."""
        found = self.check(response, what) if found is None else found
        if found == "ok":
            if _json_object(response) is None:
                raise Retryable("2xx with a body that is not a JSON object")
            return Outcome("ok", value=_json_object(response))
        return Outcome(_final(found), self.refusal(response, what))

    async def run(self, attempt: Callable[[], Awaitable[Outcome]]) -> Outcome:
        """Up to ``attempts`` tries of ``attempt`` (a probe: one), with backoff; keeps
        the breaker's count: outages count, refusals do not."""
        permit = self.breaker.acquire(probe_ok=True)
        if permit is None:
            return Outcome("skipped", "circuit open")
        try:
            outcome = await self._with_retries(attempt, permit)
        except BaseException:
            if permit == "probe":
                self.breaker.release_probe()
            raise
        if outcome.status == "failed":
            self.breaker.record_failure()
        else:
            # dead / config_error too: the service is up and said no to this request.
            self.breaker.record_success()
        return outcome

    async def _with_retries(
        self, attempt: Callable[[], Awaitable[Outcome]], permit: Permit
    ) -> Outcome:
        # A probe is exactly one call: a service that is still down must not be
        # hammered the moment the cool-down ends.
        attempts = 1 if permit == "probe" else self._attempts
        error = "no attempt"
        for number in range(attempts):
            if number:
                await asyncio.sleep(self._backoff * 2 ** (number - 1))
            try:
                return await attempt()
            except (TimeoutError, httpx.HTTPError, Retryable) as exc:
                error = _describe(exc)
        logger.warning("memory-service call failed after %d attempts: %s", attempts, error)
        return Outcome("failed", error)


def fact_path(fact_key: str) -> str:
    """``GET /facts/{fact_key}``: the key URL-encoded whole (its colons included)."""
    return f"/facts/{quote(fact_key, safe='')}"


def _final(found: str) -> Status:
    return "config_error" if found == "config_error" else "dead"


def _json_object(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _detail(response: httpx.Response) -> str:
    body = _json_object(response)
    detail = body.get("detail") if body is not None else None
    return str(detail if detail is not None else response.text)[:120]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, Retryable):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"[:200]
