"""A voice message end to end: the bot as a process, a fake Bot API over HTTP (getFile,
then the download from its ``/file/bot<token>/<path>`` URL, as STEPAN_TELEGRAM_API_URL
points the bot there) and a fake transcription server over HTTP (docs/voice.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from pipeline.language.catalog import Catalog
from tests.e2e.conftest import StartBot
from tests.fakes.bot_api import FakeBotAPI
from tests.fakes.stt import FakeStt

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

REPLY_TIMEOUT = 20.0
OGG = b"OggS\x00\x02 spoken in the field"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def stt() -> AsyncIterator[FakeStt]:
    async with FakeStt(api_key="sk-e2e-voice-key-0123456789") as fake:
        fake.hear(OGG, "запиши полив 20 мм на полі 3")
        yield fake


async def test_a_voice_message_is_downloaded_heard_and_answered(
    fake_api: FakeBotAPI, start_bot: StartBot, stt: FakeStt, catalog: Catalog
) -> None:
    assert stt.api_key is not None
    await start_bot(
        fake_api,
        STEPAN_STT_MODEL="whisper-1",
        STEPAN_STT_BASE_URL=stt.base_url,
        STEPAN_STT_API_KEY=stt.api_key,
    )
    user = 3101
    fake_api.push_voice(user, OGG, duration=4)
    [reply] = await fake_api.wait_for_count("sendMessage", 1, chat_id=user, timeout=REPLY_TIMEOUT)
    heard = catalog.text("uk", "voice.heard", text="запиши полив 20 мм на полі 3")
    assert reply.params["text"].startswith(f"{heard}\n\n")
    assert fake_api.calls("getFile", chat_id=None) and fake_api.calls("sendChatAction")
    [received] = stt.requests
    assert received.size == len(OGG) and received.authorization == f"Bearer {stt.api_key}"

    # Too long: refused with the reason, nothing downloaded or sent to the endpoint.
    fake_api.push_voice(user, OGG, duration=600)
    [_, refused] = await fake_api.wait_for_count(
        "sendMessage", 2, chat_id=user, timeout=REPLY_TIMEOUT
    )
    assert refused.params["text"] == catalog.text(
        "uk", "voice.too_long", length="10:00", limit="3:00"
    )
    assert len(stt.requests) == 1
