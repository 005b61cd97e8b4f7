"""`stepan run` as a process under Telegram faults: a Bot API server without
setMyCommands, 5xx at start-up, a dropped connection, a 401 and a 500 while polling,
a 500 on a reply and on a file download. The bot starts, answers, exits cleanly on
SIGTERM, and its log never holds the token (bot/log_secrets.py)."""

from __future__ import annotations

import re

import pytest

from pipeline.language.catalog import Catalog
from tests.e2e.conftest import TOKEN, StartBot
from tests.fakes.bot_api import FakeBotAPI

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

OPERATOR = 7001
FARMER = 7002
SECRET = TOKEN.split(":", 1)[1]
#: Anything shaped like a Telegram token (the filter's own shape, written again here).
TOKEN_SHAPE = re.compile(r"\d{3,}:(?!\*\*\*)[A-Za-z0-9_-]{6,}")
TIMEOUT = 60.0


async def test_faults_are_survived_and_the_token_never_logged(
    start_bot: StartBot, catalog: Catalog
) -> None:
    async with FakeBotAPI(token=TOKEN, unsupported=frozenset({"setMyCommands"})) as api:
        api.fail_next("getMe", error_code=502, description="Bad Gateway", times=2)
        api.fail_next("deleteWebhook", error_code=502, description="Bad Gateway", times=8)
        api.drop_next("getUpdates")
        api.fail_next("getUpdates", error_code=401, description="Unauthorized")
        api.fail_next("getUpdates", error_code=500, description="Internal Server Error")
        bot = await start_bot(
            api, wait=False, STEPAN_LOG_LEVEL="INFO", AGX_OPERATOR_IDS=str(OPERATOR)
        )

        # A reply through a 500: retried, delivered once.
        api.fail_next("sendMessage", error_code=500, description="Internal Server Error")
        api.push_message(FARMER, "привіт")
        [reply] = await api.wait_for_count("sendMessage", 1, chat_id=FARMER, timeout=180)
        assert reply.ok and "Farmer" in (reply.text or "")

        # A file download that fails: the operator is told, the traceback is logged.
        api.push_message(OPERATOR, "привіт")  # a profile and a farm to import into
        await api.wait_for_count("sendMessage", 1, chat_id=OPERATOR, timeout=TIMEOUT)
        api.fail_next("file", error_code=500, description="Internal Server Error")
        api.push_document(OPERATOR, b"sensor_id,value\n", file_name="r.csv")
        told = (await api.wait_for_count("sendMessage", 2, chat_id=OPERATOR, timeout=TIMEOUT))[1]
        assert told.text == catalog.text("uk", "faults.failed")
        await api.wait_for(lambda c: c.method == "deleteWebhook" and c.ok, timeout=TIMEOUT)

        assert bot.running
        assert await bot.stop() == 0

    log = bot.stderr()
    assert "has no setMyCommands" in log
    # The polling faults were met and logged (the dropped connection, the 401).
    assert "TelegramNetworkError" in log and "TelegramUnauthorizedError" in log
    assert "/file/bot123456:***/" in log  # the download's URL was logged: masked
    assert SECRET not in log
    assert TOKEN_SHAPE.search(log) is None, TOKEN_SHAPE.search(log)
