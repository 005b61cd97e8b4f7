"""The LLM: any OpenAI-compatible endpoint through CrewAI's ``LLM``, built on first use.

CrewAI takes seconds to import, so nothing imports it until an LLM is configured,
and then in a worker thread (the event loop keeps serving light replies). The API
key is read from a SecretStr only when the client is built and never logged; logs
and health records carry the error's type name, never its message (which may quote
a URL with credentials).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import SecretStr

from pipeline.admin.platform import LlmHealth
from pipeline.crew.env import silence_crewai
from pipeline.crew.pool import BudgetExceeded, WorkerPool

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Error types (anywhere in the cause chain) worth one more try: the network, a busy
#: or restarting endpoint. A bad request or a refused key will not get better.
_TRANSIENT_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "RemoteProtocolError",
    }
)
_TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class LlmSettings:
    model: str
    base_url: str | None = None
    api_key: SecretStr | None = None
    request_timeout_s: float = 15.0
    temperature: float = 0.3


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not item for item in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def is_transient(exc: BaseException) -> bool:
    """A network or server-side hiccup worth a retry (our own time budget is not)."""
    if isinstance(exc, BudgetExceeded):
        return False
    for item in _chain(exc):
        if isinstance(item, ConnectionError | TimeoutError) and not isinstance(
            item, BudgetExceeded
        ):
            return True
        if type(item).__name__ in _TRANSIENT_NAMES:
            return True
        status = getattr(item, "status_code", None)
        if isinstance(status, int) and status in _TRANSIENT_STATUS:
            return True
    return False


def is_unavailable(exc: BaseException) -> bool:
    """The endpoint cannot be reached or does not answer in time (seed degradation 4)."""
    return isinstance(exc, BudgetExceeded) or is_transient(exc)


def describe(exc: BaseException) -> str:
    return type(exc).__name__


def build_crewai_llm(settings: LlmSettings) -> Any:
    """CrewAI's ``LLM`` for an OpenAI-compatible endpoint (imports CrewAI)."""
    silence_crewai()
    from crewai import LLM

    key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    logger.info(
        "llm: model %s at %s", settings.model, settings.base_url or "the provider's default"
    )
    return LLM(
        model=settings.model,
        base_url=settings.base_url,
        # Local OpenAI-compatible servers need no key, but the client insists on one.
        api_key=key or "not-needed",
        temperature=settings.temperature,
        timeout=settings.request_timeout_s,
        max_retries=0,  # retries are ours: bounded by the agent's time budget
    )


class LlmHandle:
    """The CrewAI LLM object, built once on first use from a worker thread."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._llm: Any = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, llm: Any) -> LlmHandle:
        """A handle around a ready LLM object (tests, benchmarks)."""
        return cls(lambda: llm)

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> LlmHandle:
        return cls(lambda: build_crewai_llm(settings))

    def get(self) -> Any:
        with self._lock:
            if self._llm is None:
                self._llm = self._factory()
            return self._llm


class LlmClient:
    """One-shot completions (light replies, reflection) with a deadline and retries."""

    def __init__(
        self,
        handle: LlmHandle,
        pool: WorkerPool,
        *,
        health: LlmHealth | None = None,
        retries: int = 2,
        backoff_s: float = 0.5,
        learnings: Callable[[], str] | None = None,
    ) -> None:
        #: The LEARNINGS block (docs/learning.md), appended to every system prompt.
        self._learnings = learnings
        self._handle = handle
        self._pool = pool
        self._health = health
        self._retries = retries
        self._backoff_s = backoff_s

    @property
    def handle(self) -> LlmHandle:
        return self._handle

    @property
    def pool(self) -> WorkerPool:
        return self._pool

    def record(self, ok: bool, exc: BaseException | None = None) -> None:
        if self._health is not None:
            error = describe(exc) if exc is not None else None
            self._health.record(ok, datetime.now(UTC), error)

    def with_learnings(self, prompt: str) -> str:
        """``prompt`` with the LEARNINGS block after it (unchanged without learnings):
        every system prompt - one-shot calls here, each CrewAI agent's backstory in
        the runner - carries what operators and farmers corrected."""
        block = self._learnings() if self._learnings is not None else ""
        return f"{prompt}\n\n{block}" if block else prompt

    async def complete(self, system: str, user: str, *, timeout_s: float) -> str:
        system = self.with_learnings(system)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]

        def call() -> str:
            answer = self._handle.get().call(messages)
            return answer if isinstance(answer, str) else str(answer)

        try:
            text = await retrying(
                lambda remaining: self._pool.run(call, timeout_s=remaining),
                timeout_s=timeout_s,
                retries=self._retries,
                backoff_s=self._backoff_s,
            )
        except Exception as exc:
            self.record(False, exc)
            raise
        self.record(True)
        return text


async def retrying(
    attempt: Callable[[float], Awaitable[T]],
    *,
    timeout_s: float,
    retries: int,
    backoff_s: float,
) -> T:
    """Run ``attempt(remaining_seconds)`` until it succeeds, retrying transient errors
    at most ``retries`` times within one overall ``timeout_s`` budget."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    tries = 0
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise BudgetExceeded(f"no result within {timeout_s:.1f} s")
        try:
            return await attempt(remaining)
        except Exception as exc:
            tries += 1
            if tries > retries or not is_transient(exc):
                raise
            logger.info("llm: transient %s, retry %d of %d", describe(exc), tries, retries)
            await asyncio.sleep(min(backoff_s * tries, max(0.0, deadline - loop.time())))
