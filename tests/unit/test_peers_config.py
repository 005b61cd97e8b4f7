"""STEPAN_NATS_URL: optional, checked, and never echoed (it may carry a password)."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.delenv("STEPAN_NATS_URL", raising=False)
    monkeypatch.chdir(str(tmp_path))  # no stray .env


def test_without_it_there_is_no_link() -> None:
    assert load_settings().stepan.nats_url is None


def test_a_url_with_a_password_is_kept_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPAN_NATS_URL", "nats://stepan:s3cret@nats.farm:4222")
    settings = load_settings()
    assert settings.stepan.nats_url is not None
    assert settings.stepan.nats_url.get_secret_value() == "nats://stepan:s3cret@nats.farm:4222"
    assert "s3cret" not in repr(settings)


def test_another_scheme_names_the_variable_and_not_the_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STEPAN_NATS_URL", "http://user:s3cret@nats.farm:4222")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "STEPAN_NATS_URL" in str(caught.value)
    assert "s3cret" not in str(caught.value)
