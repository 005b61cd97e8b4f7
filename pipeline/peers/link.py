"""The NATS side of the peers: request/reply with nats-py, and a no-op without NATS.

``NatsLink`` connects in the background, so a NATS server that is down at start-up
delays nothing: until it connects (and while it reconnects) ``connected`` is False
and a handoff goes straight to the peer's Telegram handle instead of waiting out a
timeout. nats-py reconnects by itself and replays subscriptions; the ``on_connect``
hooks run after the first connection and after every reconnection (Stepan publishes
its card there).

Handlers run one task per message, bounded by a semaphore: nats-py calls a
subscription's callback for one message at a time, and one slow contract must not
hold up the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError

__all__ = ["Handler", "NatsLink", "PeerLink", "PeerOffline", "PeerTimeout"]

logger = logging.getLogger(__name__)

#: Answers one request's payload with the reply's payload.
Handler = Callable[[bytes], Awaitable[bytes]]
Hook = Callable[[], Awaitable[None]]

#: Seconds between connection attempts while the server is away.
RECONNECT_WAIT_S = 2
CONNECT_TIMEOUT_S = 2
#: Requests served at once; more wait their turn.
MAX_CONCURRENT_HANDLERS = 16
#: An error about the same lost connection is logged at most this often (seconds).
ERROR_LOG_EVERY_S = 60.0


class PeerOffline(Exception):
    """No connection, or nobody listens on the subject: the request was not delivered."""


class PeerTimeout(Exception):
    """The request went out and no answer came within the time budget."""


class PeerLink(Protocol):
    @property
    def connected(self) -> bool: ...

    async def request(self, subject: str, payload: bytes, timeout_s: float) -> bytes: ...

    async def serve(self, subject: str, handler: Handler, *, queue: str = "") -> None: ...

    async def publish(self, subject: str, payload: bytes) -> None: ...

    def on_connect(self, hook: Hook) -> None: ...


class NatsLink:
    """One NATS connection for the process, built in the factory, closed on shutdown."""

    def __init__(self, url: str, *, name: str = "stepan") -> None:
        self._url = url
        self._name = name
        self._nc: Client | None = None
        self._connector: asyncio.Task[None] | None = None
        self._handlers: dict[str, tuple[Handler, str]] = {}
        self._hooks: list[Hook] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(MAX_CONCURRENT_HANDLERS)
        self._last_error_log = 0.0
        self._closing = False

    @property
    def connected(self) -> bool:
        return self._nc is not None and self._nc.is_connected

    async def start(self) -> None:
        """Begin connecting; returns at once whether or not the server is up."""
        if self._connector is None:
            self._connector = asyncio.create_task(self._connect(), name="nats-connect")

    async def wait_connected(self, timeout_s: float) -> bool:
        """For start-up scripts and tests: True once connected within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while not self.connected:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def _connect(self) -> None:
        nc = Client()
        try:
            await nc.connect(
                self._url,
                name=self._name,
                connect_timeout=CONNECT_TIMEOUT_S,
                reconnect_time_wait=RECONNECT_WAIT_S,
                # Never give up: the link is optional, a farmer never waits for it.
                max_reconnect_attempts=-1,
                allow_reconnect=True,
                error_cb=self._on_error,
                disconnected_cb=self._on_disconnected,
                reconnected_cb=self._on_reconnected,
            )
        except Exception:
            logger.exception("nats: connecting gave up; peers are reached through Telegram")
            return
        self._nc = nc
        url = nc.connected_url
        # Host and port only: the URL's netloc may carry a user and password.
        logger.info(
            "nats: connected to %s:%s", url.hostname if url else "?", url.port if url else "?"
        )
        for subject, (handler, queue) in self._handlers.items():
            await self._subscribe(nc, subject, handler, queue)
        await self._run_hooks()

    async def close(self) -> None:
        self._closing = True
        if self._connector is not None and not self._connector.done():
            self._connector.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._connector
        for task in list(self._tasks):
            task.cancel()
        if self._nc is not None and not self._nc.is_closed:
            try:
                await self._nc.close()
            except Exception:
                logger.warning("nats: close failed", exc_info=True)

    def on_connect(self, hook: Hook) -> None:
        self._hooks.append(hook)

    async def request(self, subject: str, payload: bytes, timeout_s: float) -> bytes:
        nc = self._nc
        if nc is None or not nc.is_connected:
            raise PeerOffline("not connected to NATS")
        try:
            msg = await nc.request(subject, payload, timeout=timeout_s)
        except NoRespondersError:
            raise PeerOffline(f"no responders on {subject}") from None
        except NatsTimeoutError:
            raise PeerTimeout(subject) from None
        except (NatsError, OSError) as exc:
            raise PeerOffline(f"{type(exc).__name__} on {subject}") from None
        return bytes(msg.data)

    async def publish(self, subject: str, payload: bytes) -> None:
        nc = self._nc
        if nc is None or not nc.is_connected:
            raise PeerOffline("not connected to NATS")
        try:
            await nc.publish(subject, payload)
        except (NatsError, OSError) as exc:
            raise PeerOffline(f"{type(exc).__name__} on {subject}") from None

    async def serve(self, subject: str, handler: Handler, *, queue: str = "") -> None:
        """Answer requests on ``subject`` (now, or as soon as the link connects).

        With a ``queue`` group, several Stepan instances share the subject and each
        request is answered by one of them."""
        self._handlers[subject] = (handler, queue)
        if self._nc is not None and not self._nc.is_closed:
            await self._subscribe(self._nc, subject, handler, queue)

    async def _subscribe(self, nc: Client, subject: str, handler: Handler, queue: str) -> None:
        async def on_message(msg: Msg) -> None:
            if not msg.reply:
                return  # a publication (our own card, say), not a request
            task = asyncio.create_task(self._answer(msg, handler))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        await nc.subscribe(subject, queue=queue, cb=on_message)

    async def _answer(self, msg: Msg, handler: Handler) -> None:
        async with self._slots:
            try:
                reply = await handler(bytes(msg.data))
            except Exception:
                # The handler answers its own errors; this is a bug, logged, and the
                # requester times out rather than reading a half-built answer.
                logger.exception("nats: handler for %s failed", msg.subject)
                return
            try:
                await msg.respond(reply)
            except (NatsError, OSError):
                logger.warning("nats: could not answer on %s", msg.subject, exc_info=True)

    async def _run_hooks(self) -> None:
        for hook in self._hooks:
            try:
                await hook()
            except Exception:
                logger.warning("nats: on-connect hook failed", exc_info=True)

    async def _on_error(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._last_error_log >= ERROR_LOG_EVERY_S:
            self._last_error_log = now
            logger.warning("nats: %s: %s (retrying)", type(exc).__name__, exc)

    async def _on_disconnected(self) -> None:
        if not self._closing:
            logger.warning("nats: disconnected; peers are reached through Telegram meanwhile")

    async def _on_reconnected(self) -> None:
        logger.info("nats: reconnected")
        await self._run_hooks()


def link_from_url(url: str | None, *, name: str = "stepan") -> NatsLink | None:
    """The link for ``STEPAN_NATS_URL``, or None when it is not set."""
    return NatsLink(url, name=name) if url else None
