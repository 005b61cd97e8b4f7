"""``stepan memory status | sync | pull USER_ID | retry-dead``: the memory-service copy,
for the operator who runs the bot (docs/OPERATIONS.md).

Each command builds only the database and the memory layer (no bot, no pipeline),
does its work and closes them. They act on the same database as a running bot.
``sync`` flushes under the scheduled flush's own job lock (``outbox_flush``): when the
bot's job (or another ``sync``) holds it, it sends nothing, says so and exits 3; it
stops before the lock's five minutes run out (run it again for the rest).
"""

from __future__ import annotations

import argparse
import os
import socket
from datetime import timedelta
from typing import TextIO

import httpx

from bot.config import Settings
from bot.wiring.memory import StaticTokenShared, build_memory_layer, refuse_shared_static_token
from db.engine import create_engine
from db.uow import Database
from pipeline.clock import utcnow
from pipeline.memory import Memory
from pipeline.memory.service.client import TIMEOUT_S
from pipeline.memory.service.flush_lock import FLUSH_JOB_ID, FlushLockHeld, HeldLock, flush_lock
from pipeline.memory.service.syncing import FlushResult

#: ``stepan memory sync`` sends at most this many batches (100 rows each) per run.
MAX_SYNC_ROUNDS = 50
#: No new batch this close to the lock's expiry (a batch's calls are bounded by it).
LOCK_MARGIN = timedelta(seconds=60)
#: The exit code when another flusher holds the lock.
LOCK_HELD = 3


async def run(settings: Settings, args: argparse.Namespace, out: TextIO) -> int:
    try:
        await refuse_shared_static_token(settings)
    except StaticTokenShared as exc:
        print(f"configuration error: {exc}", file=out)
        return 2
    engine = create_engine(settings.stepan.database_url)
    http = httpx.AsyncClient(timeout=TIMEOUT_S)
    try:
        db = Database.of(engine)
        memory = build_memory_layer(settings, db, http)
        if memory.sync.client is None:
            print("memory-service: not configured (AGX_MEMORY_SERVICE_URL)", file=out)
            return 2
        command = args.memory_command
        if command == "status":
            return await _status(memory, out)
        if command == "sync":
            return await _sync(memory, db, out)
        if command == "pull":
            return await _pull(memory, _user_id(args.user_id), out)
        requeued = await memory.sync.retry_dead()
        print(f"requeued {requeued} dead letter(s); `stepan memory sync` sends them", file=out)
        return 0
    finally:
        await http.aclose()
        await engine.dispose()


async def _status(memory: Memory, out: TextIO) -> int:
    client = memory.sync.client
    assert client is not None
    health = await client.health()
    status = await memory.sync.status(dead_shown=20)
    counts = status.counts
    print(f"memory-service: {client.base_url} (token: {client.credentials.kind})", file=out)
    print(f"health: {health}", file=out)
    # This process's breaker has seen nothing yet; the bot's is in its /status.
    print(f"breaker: {status.breaker}", file=out)
    print(
        f"unsent rows: pending {counts['pending']}, config_error {counts['config_error']}, "
        f"dead {counts['dead']}",
        file=out,
    )
    if status.config_error:
        print(f"configuration error: {status.config_error}", file=out)
    for letter in status.dead:
        print(
            f"  dead #{letter.id} {letter.user_id} {letter.operation} {letter.fact_key}: "
            f"{letter.reason}",
            file=out,
        )
    return 0 if status.healthy and health == "ok" else 1


async def _sync(memory: Memory, db: Database, out: TextIO) -> int:
    owner = f"stepan memory sync {socket.gethostname()}:{os.getpid()}"
    try:
        async with flush_lock(db, owner, utcnow) as held:
            code = await _sync_rounds(memory, held, out)
    except FlushLockHeld:
        print(
            f"another flush is running (job {FLUSH_JOB_ID} holds its lock: the bot's "
            "scheduled flush or another `stepan memory sync`); nothing sent, try again "
            "in a minute",
            file=out,
        )
        return LOCK_HELD
    return code


async def _sync_rounds(memory: Memory, held: HeldLock, out: TextIO) -> int:
    total = FlushResult(0, 0, 0)
    for _ in range(MAX_SYNC_ROUNDS):
        if utcnow() > held.deadline - LOCK_MARGIN:
            print("stopped: the flush lock is about to expire; run it again", file=out)
            break
        result = await memory.sync.flush()
        for call in result.calls:
            print(f"sent {call}", file=out)
        total = FlushResult(
            total.sent + result.sent, total.failed + result.failed, result.pending,
            total.dead + result.dead,
        )  # fmt: skip
        if not result.sent or not result.pending:
            break
    print(
        f"sent {total.sent} row(s), failed {total.failed}, dead {total.dead}, "
        f"pending {total.pending}",
        file=out,
    )
    status = await memory.sync.status(dead_shown=0)
    if status.config_error:
        print(f"configuration error: {status.config_error}", file=out)
    held.outcome = "ok" if not total.failed and not status.config_error else "error"
    held.detail = f"stepan memory sync: sent {total.sent}, failed {total.failed}"
    return 0 if held.outcome == "ok" else 1


async def _pull(memory: Memory, user_id: str, out: TextIO) -> int:
    result = await memory.sync.pull(user_id)
    print(result.message, file=out)
    for change in result.changes:
        print(f"  {change.kind}.{change.field}: {change.old!r} -> {change.new!r}", file=out)
    if result.ok and not result.changes:
        print("  nothing changed", file=out)
    return 0 if result.ok else 1


def _user_id(raw: str) -> str:
    """A bare Telegram id is the farmer ``tg:<id>``; anything else is taken as given."""
    return f"tg:{raw}" if raw.lstrip("-").isdigit() else raw
