"""Tokens never reach a log line: the filter on the handler masks them everywhere."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from bot.log_secrets import (
    SecretMaskFilter,
    install_secret_filter,
    install_secret_record_factory,
    mask_secrets,
)

TOKEN = "987654321:AAH7xQ-secret_Part0123456789abcdefXYZ"
SENSOR = "stp_Zk3mQ9-aB_cD7eF1gH2iJ3kL4mN5oP6qR7sT8uV9w"
#: The line aiogram logged in the incident (aiohttp's error carries the URL).
INCIDENT = (
    "Failed to fetch updates - TelegramNetworkError: HTTP Client says - ClientOSError: "
    f"[Errno 32] Can not write request body for http://127.0.0.1:8081/bot{TOKEN}/getUpdates"
)


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("test.log_secrets")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    install_secret_filter(logger)
    try:
        yield logger, stream
    finally:
        logger.removeHandler(handler)
        logger.propagate = True


def test_bot_token_in_a_url_is_masked_and_the_bot_id_kept() -> None:
    masked = mask_secrets(INCIDENT)
    assert "secret_Part" not in masked
    assert "/bot987654321:***/getUpdates" in masked


@pytest.mark.parametrize(
    "text",
    [
        TOKEN,
        f"token={TOKEN}",
        f'"{TOKEN}"',
        f"https://api.telegram.org/file/bot{TOKEN}/documents/file_1.csv",
        f"issued {SENSOR} for farm 3",
        f"Authorization: Bearer {SENSOR}",
        # A URL quoted by a proxy's error page or a client's log: the colon encoded.
        "http://127.0.0.1:8081/bot" + TOKEN.replace(":", "%3A") + "/getUpdates",
        "bot" + TOKEN.replace(":", "%3a"),
        f"STEPAN_BOT_TOKEN_{TOKEN}",  # glued to a word
    ],
)
def test_token_shapes_are_masked(text: str) -> None:
    masked = mask_secrets(text)
    assert "secret_Part" not in masked and "Zk3mQ9" not in masked


@pytest.mark.parametrize(
    "text",
    [
        "2025-05-01 12:30:45 polled 12:30",
        "ratio 3:2, field 17, trace=ab12cd34",
        "http://127.0.0.1:8081/bot/getUpdates",
        "next=http%3A%2F%2Fexample.org%3A8080",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert mask_secrets(text) == text


def test_message_arguments_exception_text_and_stack_are_masked(
    captured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = captured
    logger.error("sending via %s failed", f"http://x/bot{TOKEN}/sendMessage")
    try:
        raise ConnectionError(f"Can not write request body for http://x/bot{TOKEN}/getUpdates")
    except ConnectionError:
        logger.exception("request failed with %s", SENSOR)
    logger.warning("where: %s", "here", stack_info=True)

    output = stream.getvalue()
    assert "secret_Part" not in output and "Zk3mQ9" not in output
    assert output.count("bot987654321:***") == 2  # the message and the exception line
    assert "stp_***" in output


def test_the_filter_is_installed_once() -> None:
    logger = logging.getLogger("test.log_secrets.once")
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        install_secret_filter(logger)
        install_secret_filter(logger)
        assert sum(isinstance(f, SecretMaskFilter) for f in handler.filters) == 1
    finally:
        logger.removeHandler(handler)


KEY = "sk-proj-Qm7vX2pL9kR4tY8wZ1nB5cD3fG6hJ0aS"


@pytest.mark.parametrize(
    "text",
    [
        f"Incorrect API key provided: {KEY}. You can find your API key at https://x.org",
        f"{{'error': {{'message': 'bad key {KEY}'}}}}",
        "Authorization: Bearer Qm7vX2pL9kR4tY8wZ1nB",
        "authorization: basic UW03dlgycEw5a1I0",
        '{"api_key": "Qm7vX2pL9kR4", "model": "gpt"}',
        "{'password': 'Qm7vX2pL9kR4'}",
        "STEPAN_LLM_API_KEY=Qm7vX2pL9kR4 is set",
        "client_secret: Qm7vX2pL9kR4",
        "GET /v1/models?key=Qm7vX2pL9kR4&alt=json",
        "access_token=Qm7vX2pL9kR4",
        "postgresql+asyncpg://stepan:Qm7vX2pL9kR4@db-host/stepan",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.Qm7vX2pL9kR4tY8w",
    ],
)
def test_credential_shapes_from_any_library_are_masked(text: str) -> None:
    assert "Qm7vX2pL9kR4" not in mask_secrets(text)


@pytest.mark.parametrize(
    "text",
    [
        "llm: model gpt-4o-mini at http://127.0.0.1:8000/v1",
        "prompt max_tokens=512, input_tokens: 300",
        "memory: fact_key=user_profile:agromatrix:42 upserted",
        "basic knowledge of the Bearer of good news",
        "readings endpoint on http://0.0.0.0:8080/api/v1/readings",
    ],
)
def test_ordinary_lines_keep_their_words(text: str) -> None:
    assert mask_secrets(text) == text


def test_the_record_factory_masks_for_handlers_added_later() -> None:
    factory = logging.getLogRecordFactory()
    stream = io.StringIO()
    logger = logging.getLogger("test.log_secrets.late")
    logger.propagate = False
    try:
        install_secret_record_factory()
        install_secret_record_factory()  # idempotent
        logger.addHandler(logging.StreamHandler(stream))  # no filter of ours
        logger.error("provider said %s", f"Incorrect API key provided: {KEY}")
    finally:
        logging.setLogRecordFactory(factory)
        logger.handlers.clear()
        logger.propagate = True
    assert "Qm7vX2pL9kR4" not in stream.getvalue() and "sk-***" in stream.getvalue()
