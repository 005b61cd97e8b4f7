"""The transcription client against a fake OpenAI-compatible server over real HTTP:
the request OpenAI's createTranscription takes, its answers and its refusals."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import SecretStr

from pipeline.speech import Audio, Failure, SpeechSettings, Transcriber
from pipeline.speech.transcribe import TranscriptionFailed
from tests.fakes.stt import FakeStt

KEY = "sk-test-0123456789abcdefghijklmnop"
OGG = b"OggS\x00\x02voice-bytes"


@pytest.fixture
async def stt() -> AsyncIterator[FakeStt]:
    async with FakeStt(api_key=KEY) as fake:
        yield fake


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=2.0) as client:
        yield client


def transcriber(
    http: httpx.AsyncClient, stt: FakeStt, *, key: str | None = KEY, timeout_s: float = 5.0
) -> Transcriber:
    secret = SecretStr(key) if key is not None else None
    return Transcriber(http, SpeechSettings(stt.base_url, "whisper-1", secret, timeout_s))


async def test_the_request_is_openais_and_the_text_comes_back(
    http: httpx.AsyncClient, stt: FakeStt
) -> None:
    stt.hear(OGG, "  запиши полив 20 мм на полі 3  ")
    text = await transcriber(http, stt).transcribe(Audio("voice.ogg", OGG, "audio/ogg"), "uk")
    assert text == "запиши полив 20 мм на полі 3"
    [received] = stt.requests
    assert received.fields == {"model": "whisper-1", "response_format": "json", "language": "uk"}
    assert (received.filename, received.content_type, received.size) == (
        "voice.ogg",
        "audio/ogg",
        len(OGG),
    )
    assert received.authorization == f"Bearer {KEY}"


async def test_no_language_no_key(http: httpx.AsyncClient) -> None:
    async with FakeStt(default="hello") as open_stt:
        text = await transcriber(http, open_stt, key=None).transcribe(Audio("a.mp3", b"ID3"))
    assert text == "hello"
    [received] = open_stt.requests
    assert "language" not in received.fields and received.authorization is None


async def test_silence_is_an_empty_text(http: httpx.AsyncClient, stt: FakeStt) -> None:
    assert await transcriber(http, stt).transcribe(Audio("voice.ogg", OGG)) == ""


@pytest.mark.parametrize(
    ("status", "failure"),
    [
        (400, Failure.REFUSED),
        (413, Failure.TOO_LARGE),
        (500, Failure.SERVER),
        (503, Failure.SERVER),
    ],
)
async def test_refusals_are_named(
    http: httpx.AsyncClient, stt: FakeStt, status: int, failure: Failure
) -> None:
    stt.fail_next(status)
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, stt).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is failure
    assert str(status) in str(caught.value)


async def test_a_format_the_endpoint_cannot_read_is_refused(
    http: httpx.AsyncClient, stt: FakeStt
) -> None:
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, stt).transcribe(Audio("voice.amr", OGG))
    assert caught.value.failure is Failure.REFUSED
    assert "Invalid file format" in str(caught.value)


async def test_over_the_endpoints_size_limit(http: httpx.AsyncClient) -> None:
    async with FakeStt(max_bytes=1000) as small:
        with pytest.raises(TranscriptionFailed) as caught:
            await transcriber(http, small).transcribe(Audio("voice.ogg", b"x" * 2000))
    assert caught.value.failure is Failure.TOO_LARGE


async def test_a_wrong_key_is_refused_and_never_logged(
    http: httpx.AsyncClient, stt: FakeStt, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = "sk-wrong-9876543210zyxwvutsrqponm"
    caplog.set_level(logging.DEBUG)
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, stt, key=wrong).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is Failure.AUTH
    # The careless server echoed the key; the error Stepan keeps has it scrubbed.
    assert wrong not in str(caught.value) and "***" in str(caught.value)
    assert wrong not in caplog.text


async def test_a_slow_server_is_a_timeout(http: httpx.AsyncClient, stt: FakeStt) -> None:
    stt.delay_s = 5.0
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, stt, timeout_s=0.2).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is Failure.TIMEOUT


async def test_a_server_that_is_gone(http: httpx.AsyncClient) -> None:
    gone = FakeStt()
    await gone.start()
    await gone.stop()
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, gone).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is Failure.UNREACHABLE


async def test_an_answer_that_is_not_a_transcription(http: httpx.AsyncClient, stt: FakeStt) -> None:
    stt.garbage = True  # a proxy's page with 200
    with pytest.raises(TranscriptionFailed) as caught:
        await transcriber(http, stt).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is Failure.UNREADABLE


async def test_a_base_url_without_the_endpoint(http: httpx.AsyncClient, stt: FakeStt) -> None:
    settings = SpeechSettings(stt.base_url.removesuffix("/v1"), "whisper-1", SecretStr(KEY))
    with pytest.raises(TranscriptionFailed) as caught:
        await Transcriber(http, settings).transcribe(Audio("voice.ogg", OGG))
    assert caught.value.failure is Failure.SERVER and "404" in str(caught.value)
