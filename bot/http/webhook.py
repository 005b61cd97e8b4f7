"""Webhook mode (``stepan run --webhook``): several instances behind one address.

    POST {STEPAN_WEBHOOK_PATH}   Telegram's updates; X-Telegram-Bot-Api-Secret-Token required
    GET  /healthz                the process is up (no dependency is asked)
    GET  /readyz                 database answers, schema at head, Redis answers (if set)
    GET  /metrics                Prometheus text format (bot/http/metrics.py)

An update is stored in the inbox (bot/transport/inbox.py) before the answer 200, so an
instance that dies after answering loses nothing: the row's lease runs out and
another instance replays it. A duplicate (Telegram retrying a slow answer, two
instances behind a balancer) finds its row and is dropped. If the database cannot
store it, the answer is 503 and Telegram delivers it again later.

The secret token is compared in constant time on every request; a request without it
gets 401 and is never parsed.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.types import Update
from aiohttp import web

from bot.http.metrics import CONTENT_TYPE, Metrics
from bot.transport.inbox import CLAIMED, Inbox
from bot.transport.unstored import PATIENCE_S, UnstoredAnswers

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: Telegram's updates are small; a file arrives as a file_id, not its bytes.
CLIENT_MAX_SIZE = 1024 * 1024

#: Update ids are positive and fit the inbox's BIGINT.
MAX_UPDATE_ID = 2**63

#: A readiness check: its name and a coroutine raising if the dependency is not ready.
Check = tuple[str, Callable[[], Awaitable[None]]]


class WebhookServer:
    def __init__(
        self,
        *,
        dispatcher: Dispatcher,
        bot: Bot,
        inbox: Inbox,
        secret: str,
        path: str,
        checks: list[Check],
        metrics: Metrics | None = None,
        unstored: UnstoredAnswers | None = None,
    ) -> None:
        self._unstored = unstored
        if not secret:
            raise ValueError("webhook mode needs a secret token")
        self._dispatcher = dispatcher
        self._bot = bot
        self._inbox = inbox
        self._secret = secret.encode()
        self._path = path
        self._checks = checks
        self._metrics = metrics
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self, stop: asyncio.Event, host: str, port: int) -> None:
        """Serve until ``stop``; then stop taking requests (bounded: 5 s) — the
        updates already stored finish in the dispatcher's shutdown."""
        runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=5.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
            logger.info("webhook: listening on %s:%s%s", host, port, self._path)
            await stop.wait()
        finally:
            await runner.cleanup()

    async def drain(self) -> None:
        """Until every update taken so far has been handled (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=CLIENT_MAX_SIZE)
        app.router.add_post(self._path, self.on_update)
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)
        return app

    def _authorised(self, request: web.Request) -> bool:
        given = request.headers.get(SECRET_HEADER, "").encode()
        return hmac.compare_digest(given, self._secret)

    async def on_update(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return web.json_response({"error": "unauthorized"}, status=401)
        try:
            payload: Any = json.loads(await request.read())
            update_id = payload["update_id"]
            if not isinstance(update_id, int) or isinstance(update_id, bool):
                raise TypeError("update_id")
            if not 0 <= update_id < MAX_UPDATE_ID:  # no BIGINT holds it: 503 forever
                raise ValueError("update_id")
        except (ValueError, KeyError, TypeError, RecursionError):
            # RecursionError: JSON nested thousands deep.
            return web.json_response({"error": "bad_update"}, status=400)
        store = asyncio.ensure_future(self._inbox.store_raw(update_id, payload))
        try:
            try:
                new = await asyncio.wait_for(asyncio.shield(store), PATIENCE_S)
            except TimeoutError:
                self._answer_unstored(payload)  # the farmer hears within 2 s
                new = await store
        except Exception:
            logger.exception("webhook: could not store update %s", update_id)
            self._answer_unstored(payload)
            # Telegram sends it again later: the inbox rule holds.
            return web.json_response({"error": "not_stored"}, status=503)
        if self._unstored is not None:
            self._unstored.forget((update_id,))
        if new:
            task = asyncio.create_task(self._feed(update_id, payload))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif self._metrics is not None:
            kind = next((key for key in payload if key != "update_id"), "unknown")
            self._metrics.update_handled(kind, "duplicate")
        return web.json_response({"ok": True})

    def _answer_unstored(self, payload: dict[str, Any]) -> None:
        """An update the inbox could not store yet is answered anyway, in the
        background (bot/transport/unstored.py)."""
        if self._unstored is None:
            return
        try:
            update = Update.model_validate(payload, context={"bot": self._bot})
        except ValueError:
            return
        task = asyncio.create_task(self._unstored([update]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _feed(self, update_id: int, payload: dict[str, Any]) -> None:
        try:
            update = Update.model_validate(payload, context={"bot": self._bot})
        except ValueError:
            # A shape this aiogram cannot read (a newer Bot API's): held, it would be
            # renewed forever; replayed, it would fail the same way. Given up.
            logger.error("webhook: update %s could not be read, given up", update_id)
            await self._inbox.finish(update_id, "poison")
            return
        try:
            await self._dispatcher.feed_update(self._bot, update, **{CLAIMED: True})
        except Exception:
            logger.exception("update %s: handler failed", update_id)
        finally:
            if self._inbox.holds(update_id):
                # Failed before the inbox middleware took it: given back, for the
                # next sweep to replay, rather than held and renewed forever.
                await self._inbox.release(update_id)

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(self, request: web.Request) -> web.Response:
        results: dict[str, str] = {}
        for name, check in self._checks:
            try:
                await asyncio.wait_for(check(), 3.0)
                results[name] = "ok"
            except Exception as exc:
                results[name] = f"failed: {type(exc).__name__}"
        ready = all(value == "ok" for value in results.values())
        return web.json_response(
            {"status": "ready" if ready else "not ready", "checks": results},
            status=200 if ready else 503,
        )

    async def metrics(self, request: web.Request) -> web.Response:
        if self._metrics is None:
            return web.Response(status=404)
        body = await self._metrics.render()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})
