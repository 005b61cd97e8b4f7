"""Voice messages through the dispatcher and the local Bot API, heard by a fake
OpenAI-compatible transcription server over real HTTP (docs/voice.md): a transcript
is a message (a journal card, stored like typed text) opened by what Stepan heard;
limits refused before any download; failures said honestly; a redelivered update
transcribed once; no transcription configured: the polite reply naming the setting."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from aiogram.types import Update
from pydantic import SecretStr
from sqlalchemy import select

from bot.keyboards.pipeline import JournalCD
from bot.local.session import ApiCall, LocalBot
from bot.transport.serving import build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import InteractionRow, OperationDraftRow
from pipeline.language.catalog import Catalog
from tests.conftest import make_settings
from tests.fakes.stt import FakeStt
from tests.handlers.conftest import FARMER, OPERATOR, requests
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

SAID = "запиши полив 20 мм на полі 3"
OGG = b"OggS\x00\x02 a farmer speaking"


@pytest.fixture
async def stt() -> AsyncIterator[FakeStt]:
    async with FakeStt(api_key="sk-voice-test-key-0123456789") as fake:
        fake.hear(OGG, SAID)
        yield fake


def _core(sqlite_url: str, **stepan: Any) -> Core:
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    settings = replace(settings, stepan=settings.stepan.model_copy(update=stepan))
    return build_core(settings, rules=rulebook(), catalog=shared_catalog())


@pytest.fixture
def catalog() -> Catalog:
    return shared_catalog()


@pytest.fixture
async def heard_core(sqlite_url: str, stt: FakeStt) -> AsyncIterator[Core]:
    core = _core(
        sqlite_url,
        stt_model="whisper-1",
        stt_base_url=stt.base_url,
        stt_api_key=SecretStr(stt.api_key or ""),
        stt_timeout_s=2.0,
        voice_max_seconds=60,
    )
    try:
        yield core
    finally:
        await core.close()


@pytest.fixture
def voiced(heard_core: Core) -> LocalBot:
    return LocalBot(build_dispatcher(heard_core))


def voice(tg: LocalBot, user: int, data: bytes = OGG, *, seconds: int = 4, **extra: Any) -> Any:
    """A voice message as Telegram sends it; the recording downloadable via getFile."""
    stored = tg.telegram.register_file(data, kind="voice", mime_type="audio/ogg")
    fields = {"voice": stored.as_dict() | {"duration": seconds, "mime_type": "audio/ogg"} | extra}
    return tg.telegram.message_update(user, fields, first_name="Оксана")


def sent_text(calls: list[ApiCall]) -> str:
    [text] = [p["text"] for m, p in requests(calls) if m == "sendMessage"]
    return str(text)


async def test_a_voice_note_becomes_a_journal_card_opened_by_what_was_heard(
    voiced: LocalBot, heard_core: Core, stt: FakeStt, catalog: Catalog
) -> None:
    calls = await voiced.feed(voice(voiced, FARMER))
    methods = [m for m, _ in requests(calls)]
    # «typing…» while it listens; the recording through getFile; one reply.
    assert methods[0] == "sendChatAction" and methods.count("getFile") == 1
    assert methods[-1] == "sendMessage"
    [card] = [c for c in calls if c.method == "sendMessage"]
    heard = catalog.text("uk", "voice.heard", text=SAID)
    assert card.text is not None and card.text.startswith(f"{heard}\n\n")
    # The same card a typed message gets: the journal's buttons under it.
    first = card.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    assert JournalCD.unpack(first).draft
    # The endpoint got the recording, the model and the profile's language.
    [received] = stt.requests
    assert received.fields == {"model": "whisper-1", "response_format": "json", "language": "uk"}
    assert (received.filename, received.size) == ("speech.ogg", len(OGG))
    async with heard_core.db.read() as session:
        texts = (await session.execute(select(InteractionRow.text))).scalars().all()
        drafts = (await session.execute(select(OperationDraftRow))).scalars().all()
    assert texts == [SAID]  # stored like typed text; the audio nowhere
    assert len(drafts) == 1


async def test_the_typed_and_the_spoken_message_get_the_same_answer(
    voiced: LocalBot, catalog: Catalog, stt: FakeStt
) -> None:
    stt.hear(OGG, "привіт")
    spoken = sent_text(await voiced.feed(voice(voiced, FARMER)))
    heard = catalog.text("uk", "voice.heard", text="привіт")
    assert spoken.startswith(f"{heard}\n\n") and len(spoken) > len(heard) + 2


async def test_a_long_transcript_is_quoted_short(
    voiced: LocalBot, catalog: Catalog, stt: FakeStt
) -> None:
    long = "сьогодні на Північному полі " * 20
    stt.hear(OGG, long)
    text = sent_text(await voiced.feed(voice(voiced, FARMER)))
    quote = text.split("\n\n", 1)[0]
    assert quote.endswith("…»") and len(quote) < 200


async def test_too_long_is_refused_before_any_download(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog
) -> None:
    calls = await voiced.feed(voice(voiced, FARMER, seconds=61))
    assert requests(calls) == [
        ("sendMessage", {"chat_id": FARMER,
                         "text": catalog.text("uk", "voice.too_long", length="1:01", limit="1:00")})
    ]  # fmt: skip
    assert stt.requests == []


async def test_over_the_bot_apis_download_limit_is_refused_before_any_download(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog
) -> None:
    calls = await voiced.feed(voice(voiced, FARMER, file_size=21 * 2**20))
    expected = catalog.text("uk", "voice.too_big", size="21", limit="20")
    assert requests(calls) == [("sendMessage", {"chat_id": FARMER, "text": expected})]
    assert stt.requests == []


@pytest.mark.parametrize(
    ("status", "key"), [(400, "voice.failed"), (413, "voice.failed"), (500, "voice.failed")]
)
async def test_a_refusal_of_the_endpoint_is_said_honestly(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog, heard_core: Core, status: int, key: str
) -> None:
    stt.fail_next(status)
    assert sent_text(await voiced.feed(voice(voiced, FARMER))) == catalog.text("uk", key)
    async with heard_core.db.read() as session:
        assert (await session.execute(select(InteractionRow))).first() is None


async def test_silence_asks_to_try_again(voiced: LocalBot, stt: FakeStt, catalog: Catalog) -> None:
    stt.hear(OGG, "   ")
    text = sent_text(await voiced.feed(voice(voiced, FARMER)))
    assert text == catalog.text("uk", "voice.empty")


async def test_a_slow_endpoint_is_a_timeout(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog
) -> None:
    stt.delay_s = 10.0  # the core's timeout is 2 s
    text = sent_text(await voiced.feed(voice(voiced, FARMER)))
    assert text == catalog.text("uk", "voice.timeout")


async def test_a_failed_download_asks_to_resend(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog
) -> None:
    update = voice(voiced, FARMER)
    update["message"]["voice"]["file_id"] = "gone"  # getFile: Bad Request: invalid file_id
    calls = await voiced.feed(update)
    [text] = [c.text for c in calls if c.method == "sendMessage"]
    assert text == catalog.text("uk", "voice.download_failed")
    assert stt.requests == []


async def test_a_redelivered_voice_update_is_transcribed_once(
    heard_core: Core, stt: FakeStt
) -> None:
    dispatcher = build_dispatcher(heard_core)
    build_inbox(heard_core, dispatcher)
    tg = LocalBot(dispatcher)
    raw = voice(tg, FARMER)
    since = len(tg.session.calls)
    for _ in range(2):
        update = Update.model_validate({"update_id": 777, **raw}, context={"bot": tg.bot})
        await tg.dispatcher.feed_update(tg.bot, update)
    calls = tg.session.since(since)
    assert [c.method for c in calls].count("sendMessage") == 1
    assert len(stt.requests) == 1


async def test_audio_files_and_video_notes_are_heard_too(
    voiced: LocalBot, stt: FakeStt, catalog: Catalog
) -> None:
    stored = voiced.telegram.register_file(OGG, kind="music", mime_type="audio/mpeg")
    audio = stored.as_dict() | {"duration": 5, "mime_type": "audio/mpeg"}
    await voiced.feed(voiced.telegram.message_update(FARMER, {"audio": audio}))
    stored = voiced.telegram.register_file(OGG, kind="video_notes", mime_type="video/mp4")
    note = stored.as_dict() | {"duration": 5, "length": 240}
    await voiced.feed(voiced.telegram.message_update(FARMER, {"video_note": note}))
    assert [(r.filename, r.content_type) for r in stt.requests] == [
        ("audio.mp3", "audio/mpeg"),
        ("video_note.mp4", "video/mp4"),
    ]


@pytest.fixture
async def deaf_core(sqlite_url: str) -> AsyncIterator[Core]:
    core = _core(sqlite_url)
    try:
        yield core
    finally:
        await core.close()


async def test_without_transcription_the_polite_reply_names_the_setting(
    deaf_core: Core, catalog: Catalog
) -> None:
    tg = LocalBot(build_dispatcher(deaf_core))
    assert requests(await tg.feed(voice(tg, FARMER))) == [
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "voice.off")})
    ]
    # The operator is told what to configure.
    operator = sent_text(await tg.feed(voice(tg, OPERATOR)))
    assert operator == (
        f"{catalog.text('uk', 'voice.off')}\n\n{catalog.text('uk', 'voice.off_operator')}"
    )
    assert "STEPAN_STT_MODEL" in operator
