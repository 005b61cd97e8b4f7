"""The `stepan` command line's arguments: run | chat | migrate | memory | stats | rollups |
model.

Only argparse here: parsing the command line imports nothing a command may not need
(``stepan migrate`` never pays for aiogram, CrewAI or the memory client)."""

from __future__ import annotations

import argparse
from pathlib import Path


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="stepan", description="Stepan, the farm assistant")
    sub = main.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start the Telegram bot (long polling)")
    run.add_argument(
        "--webhook",
        action="store_true",
        help="take updates by webhook (several instances; docs/DEPLOY.md)",
    )
    chat = sub.add_parser("chat", help="talk to Stepan in the terminal, no token needed")
    chat.add_argument("--user", default=None, help="who you are in the chat (default: $USER)")
    chat.add_argument("--operator", action="store_true", help="chat as an operator")
    chat.add_argument(
        "--files",
        type=Path,
        default=None,
        help="where files the bot sends are saved (default: ./data/chat-files)",
    )
    sub.add_parser("migrate", help="upgrade the database schema to the latest version")
    _memory(sub)
    stats = sub.add_parser("stats", help="quality figures against the seed's targets")
    stats.add_argument(
        "--since", default=None, help="a period back from now (7d, 24h, 2w, 1m) or a date"
    )
    stats.add_argument("--json", action="store_true", help="one JSON object")
    stats.add_argument("--lang", choices=("uk", "en"), default="uk", help="language of the text")
    rollups = sub.add_parser(
        "rollups", help="rebuild the hourly sensor rollups from the readings (docs/sensors.md)"
    )
    rollups.add_argument("--farm", default=None, help="one farm's id (default: every farm)")
    model = sub.add_parser("model", help="the classifier's learned fallback (docs/learning.md)")
    model_commands = model.add_subparsers(dest="model_command", required=True)
    build = model_commands.add_parser(
        "build", help="retrain from the corpora and corrections; kept only if better"
    )
    build.add_argument("--force", action="store_true", help="write it even if not better")
    build.add_argument("--json", action="store_true", help="one JSON object")
    return main


def _memory(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``stepan memory status | sync | pull USER_ID | retry-dead`` (bot/cli/memory.py)."""
    memory = sub.add_parser("memory", help="the memory-service copy: status, sync, pull, retry")
    commands = memory.add_subparsers(dest="memory_command", required=True)
    commands.add_parser("status", help="breaker, backlog by state, dead letters with reasons")
    commands.add_parser("sync", help="flush the outbox now and print what was sent")
    pull = commands.add_parser("pull", help="hydrate one farmer from the memory-service")
    pull.add_argument("user_id", help="Stepan's id of the farmer, e.g. tg:123456 (or 123456)")
    commands.add_parser("retry-dead", help="requeue dead letters after a fix")
