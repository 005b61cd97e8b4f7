"""A small circuit breaker for a remote service's link (the memory-service's, the
weather source's: ``name`` says which in the log).

closed    calls go through; ``failure_threshold`` consecutive failures open it.
open      nothing is tried until ``cooldown`` has passed.
half_open the cool-down has passed: exactly ONE caller that may probe gets through;
          its success closes the breaker, its failure opens it for another cool-down.

Callers that must never wait (a conversation) ask with ``probe_ok=False`` and so are
never the probe: a hanging service would otherwise cost one farmer the full timeout
after every cool-down. The outbox flush (a background job) does the probing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

logger = logging.getLogger(__name__)

State = Literal["closed", "open", "half_open"]
Permit = Literal["call", "probe"]

FAILURE_THRESHOLD = 5
COOLDOWN_S = 30.0


class CircuitBreaker:
    def __init__(
        self,
        *,
        failure_threshold: int = FAILURE_THRESHOLD,
        cooldown_s: float = COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
        name: str = "memory-service",
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self._threshold = failure_threshold
        self._cooldown = cooldown_s
        self._clock = clock
        self._name = name
        self._failures = 0
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> State:
        if self._opened_at is None:
            return "closed"
        if self._probing or self._clock() - self._opened_at >= self._cooldown:
            return "half_open"
        return "open"

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    def acquire(self, *, probe_ok: bool) -> Permit | None:
        """May a call be made now? None: no. "probe": yes, as the single probe."""
        state = self.state
        if state == "closed":
            return "call"
        if state == "half_open" and probe_ok and not self._probing:
            self._probing = True
            return "probe"
        return None

    def record_success(self) -> None:
        if self._opened_at is not None:
            logger.info("%s breaker closed", self._name)
        self._failures = 0
        self._opened_at = None
        self._probing = False

    def record_failure(self) -> None:
        self._failures += 1
        if self._probing or (self._opened_at is None and self._failures >= self._threshold):
            if self._opened_at is None:
                logger.warning("%s breaker opened after %d failures", self._name, self._failures)
            self._opened_at = self._clock()
        self._probing = False

    def release_probe(self) -> None:
        """The probe ended without a verdict (cancelled): let the next caller probe."""
        self._probing = False
