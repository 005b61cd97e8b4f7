"""The `stepan` command: run | chat | migrate | memory | stats."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import sys
from pathlib import Path

from pipeline.crewai_env import silence_crewai

silence_crewai()  # before anything below can import CrewAI

from bot import memory_cli  # noqa: E402
from bot.config import ConfigError, Settings, load_settings  # noqa: E402
from bot.log_secrets import SecretMaskFilter  # noqa: E402

NO_TOKEN_HELP = (
    "stepan: STEPAN_BOT_TOKEN is not set.\n"
    "  Get a token from @BotFather, then: export STEPAN_BOT_TOKEN=123456:ABC... "
    "(or put it in .env) and run `make run` again.\n"
    "  To talk to Stepan without Telegram: `make chat`."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stepan", description="Stepan, the farm assistant")
    sub = parser.add_subparsers(dest="command", required=True)
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
    memory_cli.add_parser(sub)
    stats = sub.add_parser("stats", help="quality figures against the seed's targets")
    stats.add_argument(
        "--since", default=None, help="a period back from now (7d, 24h, 2w, 1m) or a date"
    )
    stats.add_argument("--json", action="store_true", help="one JSON object")
    stats.add_argument("--lang", choices=("uk", "en"), default="uk", help="language of the text")
    return parser


def configure_logging(level: str, quiet: bool, *, traced: bool = True) -> None:
    handler = logging.StreamHandler(sys.stderr)
    trace = "trace=%(trace_id)s "
    if traced:
        # The trace filter lives with the aiogram middleware: `stepan stats` skips it.
        from bot.middlewares.trace import TraceLogFilter

        handler.addFilter(TraceLogFilter())
    else:
        trace = ""
    # Tokens never reach stderr: aiohttp's errors carry the request URL, which holds
    # the bot token, and aiogram logs them (bot/log_secrets.py).
    handler.addFilter(SecretMaskFilter())
    handler.setFormatter(
        logging.Formatter(f"%(asctime)s %(levelname)s [%(name)s] {trace}%(message)s")
    )
    logging.basicConfig(level=logging.WARNING if quiet else level.upper(), handlers=[handler])
    # aiogram logs every update at INFO; keep it for debugging only.
    logging.getLogger("aiogram.event").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings: Settings = load_settings()
    except ConfigError as exc:
        print(f"stepan: configuration error: {exc}", file=sys.stderr)
        return 2
    configure_logging(
        settings.stepan.log_level,
        quiet=args.command in ("chat", "stats"),
        traced=args.command != "stats",
    )
    if args.command == "run":
        if settings.stepan.bot_token is None:
            print(NO_TOKEN_HELP, file=sys.stderr)
            return 2
        from bot.app import run_bot

        if args.webhook and settings.stepan.webhook_secret is None:
            print("stepan: --webhook needs STEPAN_WEBHOOK_SECRET (docs/DEPLOY.md)", file=sys.stderr)
            return 2
        asyncio.run(run_bot(settings, webhook_mode=args.webhook))
    elif args.command == "memory":
        return asyncio.run(memory_cli.run(settings, args, sys.stdout))
    elif args.command == "chat":
        from bot.console import DEFAULT_FILES_DIR, run_chat

        user = args.user or os.environ.get("USER") or getpass.getuser()
        files = args.files or DEFAULT_FILES_DIR
        asyncio.run(run_chat(settings, user, operator=args.operator, files_dir=files))
    elif args.command == "stats":
        from bot.stats_cli import run_stats

        return asyncio.run(
            run_stats(settings.stepan.database_url, args.since, as_json=args.json, lang=args.lang)
        )
    else:
        from db.migrate import upgrade

        upgrade(settings.stepan.database_url)
        print("stepan: database is at the latest schema")
    return 0


if __name__ == "__main__":
    sys.exit(main())
