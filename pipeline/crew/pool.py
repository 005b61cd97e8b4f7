"""Threads for CrewAI: its kickoff and its LLM calls are synchronous.

A pool of our own rather than asyncio's default executor: a hung LLM call keeps its
thread until the HTTP timeout, and it must not starve the database driver, report
writing or chart rendering that use the default one. Work runs in a copy of the
caller's context, so the activation gate's depth follows it into the thread (a
sub-agent that re-enters handle_message is refused, seed section 11).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")


class BudgetExceeded(TimeoutError):
    """Our own time budget ran out (the work may still be running in its thread)."""


class WorkerPool:
    def __init__(self, threads: int, name: str = "stepan-crew") -> None:
        self._executor = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix=name)

    async def run(self, fn: Callable[[], T], *, timeout_s: float) -> T:
        """``fn()`` in a worker thread; BudgetExceeded after ``timeout_s``. The thread
        cannot be interrupted: it finishes on its own (LLM calls have an HTTP timeout)."""
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        future = loop.run_in_executor(self._executor, context.run, fn)
        done, _ = await asyncio.wait({future}, timeout=max(0.0, timeout_s))
        if not done:
            future.cancel()
            raise BudgetExceeded(f"no result within {timeout_s:.1f} s")
        return future.result()

    def submit(self, fn: Callable[[], object]) -> None:
        """Fire and forget (warming up an import); errors are only logged."""

        def guarded() -> None:
            try:
                fn()
            except Exception:
                logger.warning("worker pool: background task failed", exc_info=True)

        self._executor.submit(guarded)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
