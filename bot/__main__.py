"""The `stepan` command: run | chat | migrate | memory | stats | rollups | model.

Each command imports what it uses when it runs: only ``run`` and ``chat`` load aiogram
and the pipeline (CrewAI); ``migrate``, ``memory``, ``stats`` and ``rollups`` start in a
fraction of that (tests/integration/test_cli_imports.py checks ``sys.modules``)."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys

from pipeline.crew.env import silence_crewai

silence_crewai()  # before anything below can import CrewAI

from bot.cli.parser import parser as _parser  # noqa: E402
from bot.config import ConfigError, Settings, load_settings  # noqa: E402
from bot.log_secrets import SecretMaskFilter, install_secret_record_factory  # noqa: E402
from bot.tracing import TraceLogFilter  # noqa: E402

NO_TOKEN_HELP = (
    "stepan: STEPAN_BOT_TOKEN is not set.\n"
    "  Get a token from @BotFather, then: export STEPAN_BOT_TOKEN=123456:ABC... "
    "(or put it in .env) and run `make run` again.\n"
    "  To talk to Stepan without Telegram: `make chat`."
)


def configure_logging(level: str, quiet: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(TraceLogFilter())
    # Tokens never reach stderr: aiohttp's errors carry the request URL, which holds
    # the bot token, and aiogram logs them (bot/log_secrets.py).
    handler.addFilter(SecretMaskFilter())
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s [%(name)s] trace=%(trace_id)s %(message)s")
    )
    logging.basicConfig(level=logging.WARNING if quiet else level.upper(), handlers=[handler])
    # Any credential shape (an LLM provider's 401 quoting the key, a header, a URL's
    # password), from any library, whichever handler it adds later.
    install_secret_record_factory()
    # aiogram logs every update at INFO; keep it for debugging only.
    logging.getLogger("aiogram.event").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


def _run(settings: Settings, *, webhook: bool) -> int:
    """`stepan run`: the bot, until it is stopped (exit 2: a setting is wrong; 3: the
    database file is gone)."""
    if settings.stepan.bot_token is None:
        print(NO_TOKEN_HELP, file=sys.stderr)
        return 2
    from bot.cli.run import run_bot
    from db.file_watch import DatabaseVanished

    if webhook and settings.stepan.webhook_secret is None:
        print("stepan: --webhook needs STEPAN_WEBHOOK_SECRET (docs/DEPLOY.md)", file=sys.stderr)
        return 2
    try:
        asyncio.run(run_bot(settings, webhook_mode=webhook))
    except DatabaseVanished as exc:
        print(f"stepan: {exc}", file=sys.stderr)
        return 3
    except ConfigError as exc:  # found at start-up (a static token, several farmers)
        print(f"stepan: configuration error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings: Settings = load_settings()
    except ConfigError as exc:
        print(f"stepan: configuration error: {exc}", file=sys.stderr)
        return 2
    configure_logging(
        settings.stepan.log_level, quiet=args.command in ("chat", "stats", "rollups", "model")
    )
    if args.command == "run":
        return _run(settings, webhook=args.webhook)
    if args.command == "memory":
        from bot.cli import memory as memory_cli

        return asyncio.run(memory_cli.run(settings, args, sys.stdout))
    elif args.command == "chat":
        from bot.local.console import DEFAULT_FILES_DIR, run_chat

        user = args.user or os.environ.get("USER") or getpass.getuser()
        files = args.files or DEFAULT_FILES_DIR
        asyncio.run(run_chat(settings, user, operator=args.operator, files_dir=files))
    elif args.command == "stats":
        from bot.cli.stats import run_stats

        return asyncio.run(
            run_stats(settings.stepan.database_url, args.since, as_json=args.json, lang=args.lang)
        )
    elif args.command == "rollups":
        from bot.cli.rollups import rebuild_rollups

        return asyncio.run(rebuild_rollups(settings.stepan.database_url, args.farm, sys.stdout))
    elif args.command == "model":
        from bot.cli.model import build_model

        return asyncio.run(
            build_model(
                settings.stepan.database_url,
                settings.stepan.intent_model,
                force=args.force,
                as_json=args.json,
                out=sys.stdout,
            )
        )
    else:
        from db.migrate import upgrade

        upgrade(settings.stepan.database_url)
        print("stepan: database is at the latest schema")
    return 0


if __name__ == "__main__":
    sys.exit(main())
