"""Settings: defaults, parsing, and one clear line per bad variable."""

from __future__ import annotations

import os

import pytest

from bot.__main__ import main as cli
from bot.config import ConfigError, load_settings, sqlite_path


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    for name in (
        "STEPAN_BOT_TOKEN",
        "STEPAN_DATABASE_URL",
        "STEPAN_TELEGRAM_API_URL",
        "AGX_OPERATOR_IDS",
        "AGX_FORCE_DEEP",
        "AGX_MEMORY_SERVICE_URL",
        "AGX_MEMORY_SERVICE_JWT_SECRET",
        "AGX_MEMORY_SERVICE_TOKEN",
        "AGX_MEMORY_TEAM_ID",
        "STEPAN_LLM_MODEL",
        "STEPAN_LLM_BASE_URL",
        "STEPAN_LLM_API_KEY",
        "STEPAN_STT_MODEL",
        "STEPAN_STT_BASE_URL",
        "STEPAN_STT_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(str(tmp_path))  # no stray .env


def test_defaults_need_nothing() -> None:
    settings = load_settings()
    assert settings.stepan.bot_token is None
    assert settings.stepan.database_url == "sqlite+aiosqlite:///./data/stepan.db"
    assert settings.agx.operator_ids == frozenset()
    assert settings.agx.force_deep is False
    assert settings.llm_configured is False


def test_values_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_BOT_TOKEN", "123456:AAE-secret")
    monkeypatch.setenv("AGX_OPERATOR_IDS", "111, 222;333")
    monkeypatch.setenv("AGX_FORCE_DEEP", "1")
    monkeypatch.setenv("STEPAN_TELEGRAM_API_URL", "http://127.0.0.1:8081")
    monkeypatch.setenv("STEPAN_LLM_MODEL", "gpt-4o-mini")
    settings = load_settings()
    assert settings.agx.operator_ids == frozenset({111, 222, 333})
    assert settings.agx.force_deep is True
    assert settings.llm_configured is True
    assert str(settings.stepan.telegram_api_url).startswith("http://127.0.0.1:8081")
    # SecretStr: the token never shows up in a repr or a log line.
    assert "AAE-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AGX_OPERATOR_IDS", "12,abc"),
        ("AGX_FORCE_DEEP", "maybe"),
        ("STEPAN_DATABASE_URL", "mysql://root@localhost/x"),
        ("STEPAN_TELEGRAM_API_URL", "not a url"),
        ("STEPAN_BOT_TOKEN", "no-colon-token"),
    ],
)
def test_bad_value_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert name in message
    assert "\n" not in message


def test_bad_token_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_BOT_TOKEN", "secret-without-colon")
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "secret-without-colon" not in str(info.value)


def test_memory_service_secrets_are_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGX_MEMORY_SERVICE_JWT_SECRET", "jwt-key-0123456789-0123456789-0123")
    monkeypatch.setenv("AGX_MEMORY_SERVICE_TOKEN", "")
    monkeypatch.setenv("AGX_MEMORY_TEAM_ID", "team-agro")
    settings = load_settings()
    secret = settings.agx.memory_service_jwt_secret
    assert secret is not None
    assert secret.get_secret_value() == "jwt-key-0123456789-0123456789-0123"
    assert "jwt-key" not in repr(settings) and "jwt-key" not in str(settings)
    assert settings.agx.memory_service_token is None  # empty: not set
    assert settings.agx.memory_team_id == "team-agro"


@pytest.mark.parametrize("token", ["токен-кирилицею", "two words", " padded"])
def test_a_token_that_cannot_go_into_a_header_is_refused_unechoed(
    monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    monkeypatch.setenv("AGX_MEMORY_SERVICE_TOKEN", token)
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "AGX_MEMORY_SERVICE_TOKEN" in str(info.value) and token not in str(info.value)


def _only_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """No STEPAN_/AGX_ variable of the machine running the tests reaches the CLI."""
    for name in list(os.environ):
        if name.startswith(("STEPAN_", "AGX_")):
            monkeypatch.delenv(name)


# The CLI's main() in-process (the e2e tests start `python -m bot run` as a process).
def test_cli_reports_config_error_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _only_the_defaults(monkeypatch)
    monkeypatch.setenv("AGX_OPERATOR_IDS", "x1")
    assert cli(["migrate"]) == 2
    stderr = capsys.readouterr().err
    assert "AGX_OPERATOR_IDS" in stderr
    assert "Traceback" not in stderr


def test_run_without_token_points_to_chat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _only_the_defaults(monkeypatch)
    assert cli(["run"]) == 2
    stderr = capsys.readouterr().err
    assert "STEPAN_BOT_TOKEN" in stderr
    assert "make chat" in stderr
    assert "Traceback" not in stderr


def test_sqlite_path() -> None:
    assert str(sqlite_path("sqlite+aiosqlite:///./data/x.db")) == "data/x.db"
    assert sqlite_path("postgresql+asyncpg://u@h/db") is None


def test_speech_is_off_until_a_model_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_STT_BASE_URL", "http://whisper:8000/v1")
    assert load_settings().speech is None
    monkeypatch.setenv("STEPAN_STT_MODEL", "Systran/faster-whisper-small")
    speech = load_settings().speech
    assert speech is not None
    assert (speech.base_url, speech.model, speech.api_key) == (
        "http://whisper:8000/v1",
        "Systran/faster-whisper-small",
        None,
    )


def test_speech_falls_back_to_the_llms_endpoint_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_STT_MODEL", "whisper-1")
    assert load_settings().speech is None  # no base URL anywhere: off, never a guess
    monkeypatch.setenv("STEPAN_LLM_BASE_URL", "http://llm:4000/v1/")
    monkeypatch.setenv("STEPAN_LLM_API_KEY", "sk-llm-key")
    speech = load_settings().speech
    assert speech is not None and speech.base_url == "http://llm:4000/v1"
    assert speech.api_key is not None and speech.api_key.get_secret_value() == "sk-llm-key"
    # Another host for speech: the LLM's key is not sent there.
    monkeypatch.setenv("STEPAN_STT_BASE_URL", "http://whisper:8000/v1")
    speech = load_settings().speech
    assert speech is not None and speech.api_key is None
    monkeypatch.setenv("STEPAN_STT_API_KEY", "sk-stt-key")
    settings = load_settings()
    assert settings.speech is not None and settings.speech.api_key is not None
    assert "sk-stt-key" not in repr(settings)
