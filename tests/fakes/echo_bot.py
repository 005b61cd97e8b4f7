"""A bare aiogram 3 echo bot: the baseline the benchmarks compare Stepan against.

Run it as ``python -m tests.fakes.echo_bot`` with ``STEPAN_BOT_TOKEN`` and
``STEPAN_TELEGRAM_API_URL`` (e.g. a ``FakeBotAPI.base_url``) in the environment;
``STEPAN_LOG_LEVEL`` (default INFO) sets the log level. It exits with code 0 on
SIGTERM/SIGINT.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import Message

logger = logging.getLogger(__name__)

router = Router(name="echo")


@router.message(F.text)
async def echo(message: Message) -> None:
    """Answer the text back, unchanged."""
    assert message.text is not None  # guaranteed by the F.text filter
    await message.answer(message.text)


def build_dispatcher() -> Dispatcher:
    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    return dispatcher


async def run(token: str, api_url: str) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    bot = Bot(token, session=session)
    dispatcher = build_dispatcher()
    logger.info("echo bot polling %s", api_url)
    # start_polling installs SIGTERM/SIGINT handlers, stops polling and closes the session.
    await dispatcher.start_polling(bot, handle_signals=True)


def main() -> int:
    token = os.environ.get("STEPAN_BOT_TOKEN", "")
    api_url = os.environ.get("STEPAN_TELEGRAM_API_URL", "")
    if not token or not api_url:
        print("STEPAN_BOT_TOKEN and STEPAN_TELEGRAM_API_URL must be set", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=os.environ.get("STEPAN_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(run(token, api_url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
