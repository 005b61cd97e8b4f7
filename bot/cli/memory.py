"""``stepan memory status | sync | pull USER_ID | retry-dead``: the memory-service copy,
for the operator who runs the bot (docs/OPERATIONS.md).

Each command builds only the database and the memory layer (no bot, no pipeline),
does its work and closes them. They act on the same database as a running bot, which
may flush at the same time: the rows' states and the job lock keep that safe.
"""

from __future__ import annotations

import argparse
from typing import TextIO

import httpx

from bot.config import Settings
from bot.wiring.memory import build_memory_layer
from db.engine import create_engine
from db.uow import Database
from pipeline.memory import Memory
from pipeline.memory.service.client import TIMEOUT_S
from pipeline.memory.service.syncing import FlushResult

#: ``stepan memory sync`` sends at most this many batches (100 rows each) per run.
MAX_SYNC_ROUNDS = 50


async def run(settings: Settings, args: argparse.Namespace, out: TextIO) -> int:
    engine = create_engine(settings.stepan.database_url)
    http = httpx.AsyncClient(timeout=TIMEOUT_S)
    try:
        memory = build_memory_layer(settings, Database.of(engine), http)
        if memory.sync.client is None:
            print("memory-service: not configured (AGX_MEMORY_SERVICE_URL)", file=out)
            return 2
        command = args.memory_command
        if command == "status":
            return await _status(memory, out)
        if command == "sync":
            return await _sync(memory, out)
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


async def _sync(memory: Memory, out: TextIO) -> int:
    total = FlushResult(0, 0, 0)
    for _ in range(MAX_SYNC_ROUNDS):
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
    return 0 if not total.failed and not status.config_error else 1


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
