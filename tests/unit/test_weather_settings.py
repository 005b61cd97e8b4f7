"""STEPAN_WEATHER_URL and STEPAN_WEATHER_API_KEY (docs/weather.md): a base URL or
``off``; the key a secret that no repr, error or log line shows."""

from __future__ import annotations

import pytest

from bot.config import AgxSettings, ConfigError, Settings, StepanSettings, load_settings
from bot.log_secrets import mask_secrets


def _settings(**values: object) -> Settings:
    stepan = StepanSettings(_env_file=None, **values)  # type: ignore[call-arg]
    return Settings(stepan=stepan, agx=AgxSettings(_env_file=None))  # type: ignore[call-arg]


def test_the_public_endpoint_by_default_and_off_disables_it() -> None:
    assert _settings().weather_url == "https://api.open-meteo.com"
    assert _settings(weather_url="OFF").weather_url is None
    assert _settings(weather_url="http://127.0.0.1:8080/").weather_url == "http://127.0.0.1:8080"


def test_a_url_that_is_no_base_url_stops_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_WEATHER_URL", "api.open-meteo.com/v1/forecast?x=1")
    with pytest.raises(ConfigError, match="STEPAN_WEATHER_URL"):
        load_settings()


def test_the_key_is_a_secret() -> None:
    settings = _settings(weather_api_key="k-very-secret-1")
    key = settings.stepan.weather_api_key
    assert key is not None and key.get_secret_value() == "k-very-secret-1"
    assert "k-very-secret-1" not in repr(settings)
    assert _settings(weather_api_key="  ").stepan.weather_api_key is None
    line = "GET https://customer-api.open-meteo.com/v1/forecast?latitude=1&apikey=k-very-secret-1"
    assert mask_secrets(line).endswith("apikey=***")
