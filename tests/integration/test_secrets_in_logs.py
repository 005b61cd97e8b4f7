"""An LLM provider's error that echoes the key it was sent reaches no log line
(issue 29 point 6): the deep path logs the agent's failure with its traceback, and a
library logging through a handler of its own after start-up is masked as well."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.log_secrets import SecretMaskFilter, install_secret_record_factory
from pipeline.handle import Pipeline
from tests.fakes.llm import ScriptedLLM
from tests.integration import crew_world as world
from tests.integration.deep_world import say

no_internet, pipeline_clock = world.no_internet, world.pipeline_clock
use_llm, farm = world.use_llm, world.farm

KEY = "sk-proj-Qm7vX2pL9kR4tY8wZ1nB5cD3fG6hJ0aS"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdGVwYW46NDIifQ.c2lnbmF0dXJlLXBhcnQ"
#: What an OpenAI-compatible endpoint answers a wrong key with (openai.AuthenticationError's
#: text), plus the request echoed back as some gateways do.
PROVIDER_401 = (
    "Error code: 401 - {'error': {'message': 'Incorrect API key provided: "
    f"{KEY}. You can find your API key at https://platform.openai.com/account/api-keys.', "
    "'type': 'invalid_request_error', 'code': 'invalid_api_key'}, "
    f"'request': {{'headers': {{'Authorization': 'Bearer {JWT}', 'api_key': 'hunter2-x9'}}}}}}"
)


class AuthenticationError(Exception):
    """Named as the provider's client names it."""


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """The root handler as ``stepan run`` sets it up (bot/__main__.py)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s [%(name)s] %(message)s"))
    handler.addFilter(SecretMaskFilter())
    root = logging.getLogger()
    factory, level = logging.getLogRecordFactory(), root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    install_secret_record_factory()
    try:
        yield stream
    finally:
        logging.setLogRecordFactory(factory)
        root.removeHandler(handler)
        root.setLevel(level)


async def test_a_provider_error_echoing_the_key_is_masked_in_every_log_line(
    pipeline: Pipeline,
    session_factory: async_sessionmaker[AsyncSession],
    use_llm: Callable[..., ScriptedLLM],
    farm: str,
    logs: io.StringIO,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A library that adds its own handler after start-up (LiteLLM does on import).
    library_stream = io.StringIO()
    library = logging.getLogger("LiteLLM.test")
    library.addHandler(logging.StreamHandler(library_stream))
    library.propagate = False
    try:
        use_llm(fail={"*": AuthenticationError(PROVIDER_401)})
        reply = await say(pipeline, session_factory, "сплануй тиждень")
        library.error("litellm.AuthenticationError: %s", PROVIDER_401)
    finally:
        library.propagate = True
        library.handlers.clear()

    written = logs.getvalue()
    assert "AuthenticationError" in written  # the failure itself is logged...
    assert "sk-***" in written
    for text in (written, library_stream.getvalue(), caplog.text, reply.text):
        # ...and none of what it echoed
        assert "Qm7vX2pL9kR4" not in text
        assert "eyJzdWIi" not in text
        assert "hunter2" not in text
