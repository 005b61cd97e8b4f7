"""Settings, read once from the environment (and `.env`) and passed down.

Two prefixes, as the product's deployment names them: ``STEPAN_*`` for the bot's
own settings and ``AGX_*`` for the agronomy platform's shared switches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import AnyHttpUrl, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/stepan.db"
DEFAULT_WEATHER_URL = "https://api.open-meteo.com"
_ENV_FILE = ".env"


class StepanSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="STEPAN_", env_file=_ENV_FILE, extra="ignore", frozen=True
    )

    bot_token: SecretStr | None = None
    database_url: str = DEFAULT_DATABASE_URL
    telegram_api_url: AnyHttpUrl | None = None
    llm_model: str | None = None
    llm_base_url: AnyHttpUrl | None = None
    llm_api_key: SecretStr | None = None
    #: Speech to text (docs/voice.md): an OpenAI-compatible ``{base}/audio/transcriptions``.
    #: On only with a model; the base URL (and, with it, the key) falls back to the LLM's.
    stt_model: str | None = None
    stt_base_url: AnyHttpUrl | None = None
    stt_api_key: SecretStr | None = None
    stt_timeout_s: float = Field(default=30.0, gt=0, le=600)
    #: A voice message longer than this is refused before it is downloaded.
    voice_max_seconds: int = Field(default=180, ge=1, le=3600)
    log_level: str = "INFO"
    #: The farm's clock for the nightly quality job (03:00 there; docs/learning.md).
    farm_timezone: str = "Europe/Kyiv"
    #: The classifier's learned fallback (docs/learning.md): a model file written by
    #: `stepan model build`; unset, the one packaged with Stepan.
    intent_model: Path | None = None
    #: Open-Meteo's forecast API (docs/weather.md): the base URL, the client calls
    #: {base}/v1/forecast; "off" disables the source (answers then say so).
    weather_url: str = DEFAULT_WEATHER_URL
    #: The commercial endpoint's key, sent as the ``apikey`` query parameter (masked
    #: in every log line: bot/log_secrets.py).
    weather_api_key: SecretStr | None = None
    #: redis://host:6379/0 — FSM storage shared by several instances (may hold a password).
    redis_url: SecretStr | None = None
    #: The sensor readings endpoint (bot/http/readings.py, docs/sensors.md); off while
    #: the port is None.
    http_host: str = "127.0.0.1"
    http_port: int | None = Field(default=None, ge=0, le=65535)
    #: nats://host:4222 — peer agents (docs/peers.md); may hold a user and password.
    nats_url: SecretStr | None = None
    #: Seconds an instance's claim on an update lasts without a heartbeat (bot/transport/inbox.py):
    #: the updates of an instance that died are replayed after this.
    inbox_lease_s: float = Field(default=30.0, ge=0.5, le=3600)
    #: Webhook mode (`stepan run --webhook`, bot/http/webhook.py): where this instance listens,
    #: the path Telegram posts to, the public URL given to setWebhook (none: the
    #: webhook is set by someone else) and the secret token Telegram sends back.
    webhook_host: str = "127.0.0.1"
    webhook_port: int = Field(default=8081, ge=0, le=65535)
    webhook_path: str = "/telegram/webhook"
    webhook_url: AnyHttpUrl | None = None
    webhook_secret: SecretStr | None = None
    #: Per-user throttling (bot/transport/throttle.py): a burst of this many, then this
    #: many a second.
    throttle_burst: int = Field(default=30, ge=1)
    throttle_rate: float = Field(default=1.0, gt=0)
    #: A question passed to the agronomist that nobody answered is closed after this
    #: many hours and the farmer told so (docs/knowledge.md); a late answer still goes.
    agronomist_expiry_hours: float = Field(default=72.0, gt=0, le=24 * 365)
    #: The profile cache (pipeline/memory/profiles/cache.py): how many farmers it holds (~8 KB
    #: each) and for how long; size it for the farmers who write within one TTL
    #: (docs/OPERATIONS.md). The defaults are the cache's own (a test keeps them equal;
    #: importing pipeline.memory here would slow every command-line tool down).
    profile_cache_size: int = Field(default=10_000, ge=1, le=10_000_000)
    profile_cache_ttl_s: float = Field(default=1800.0, gt=0, le=7 * 86_400)

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        # Telegram tokens are "<bot id>:<secret>"; say so before aiogram does it
        # with a traceback. The value itself is never echoed.
        if value is None or not value.get_secret_value():
            return None
        bot_id, _, secret = value.get_secret_value().partition(":")
        if not bot_id.isdigit() or not secret:
            raise ValueError("expected the token BotFather gave, like 123456:ABC-...")
        return value

    @field_validator("stt_api_key")
    @classmethod
    def _empty_key_is_unset(cls, value: SecretStr | None) -> SecretStr | None:
        return value if value is not None and value.get_secret_value() else None

    @field_validator("nats_url")
    @classmethod
    def _nats_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None
        if not value.get_secret_value().startswith(("nats://", "tls://", "ws://", "wss://")):
            raise ValueError("expected nats://host:4222 (or tls://, ws://, wss://)")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        # Telegram's rule for secret_token: 1-256 of A-Z, a-z, 0-9, _ and -.
        if value is None or not value.get_secret_value():
            return None
        secret = value.get_secret_value()
        if len(secret) > 256 or not all(c.isascii() and (c.isalnum() or c in "_-") for c in secret):
            raise ValueError("1-256 characters: letters, digits, _ and -")
        return value

    @field_validator("weather_url")
    @classmethod
    def _weather_url(cls, value: str) -> str:
        value = value.strip()
        if value.lower() == "off":
            return "off"
        if not value.startswith(("http://", "https://")) or "?" in value:
            raise ValueError("expected a base URL like https://api.open-meteo.com, or off")
        return value.rstrip("/")

    @field_validator("weather_api_key")
    @classmethod
    def _weather_key(cls, value: SecretStr | None) -> SecretStr | None:
        return value if value is not None and value.get_secret_value().strip() else None

    @field_validator("database_url")
    @classmethod
    def _database_driver(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "expected sqlite+aiosqlite:///path.db or postgresql+asyncpg://user@host/db"
            )
        return value


class AgxSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="AGX_", env_file=_ENV_FILE, extra="ignore", frozen=True
    )

    operator_ids: Annotated[frozenset[int], NoDecode] = Field(default_factory=frozenset)
    force_deep: bool = False
    memory_service_url: AnyHttpUrl | None = None
    #: HS256 key Stepan signs a short-lived JWT with for every memory-service call
    #: (``sub`` = the farmer's memory user id); docs/memory-service.md.
    memory_service_jwt_secret: SecretStr | None = None
    #: A deployment whose gateway takes one static bearer token instead of a JWT.
    memory_service_token: SecretStr | None = None
    #: The memory-service team dialog summaries belong to (its ``team_id``).
    memory_team_id: str | None = None
    #: Integrations whose health /status and the platform agent report.
    farmos_url: AnyHttpUrl | None = None
    thingsboard_url: AnyHttpUrl | None = None

    @field_validator("memory_service_jwt_secret")
    @classmethod
    def _empty_is_unset(cls, value: SecretStr | None) -> SecretStr | None:
        return value if value is not None and value.get_secret_value() else None

    @field_validator("memory_service_token")
    @classmethod
    def _header_safe(cls, value: SecretStr | None) -> SecretStr | None:
        # An empty value means "not set"; the token goes into a header verbatim, so it
        # must be printable ASCII without spaces (the value itself is never echoed).
        if value is None or not value.get_secret_value():
            return None
        secret = value.get_secret_value()
        if not secret.isascii() or not secret.isprintable() or any(c.isspace() for c in secret):
            raise ValueError("expected printable ASCII without spaces")
        return value

    @field_validator("operator_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [part.strip() for part in value.replace(";", ",").split(",")]
            ids = [part for part in parts if part]
            if not all(part.lstrip("-").isdigit() for part in ids):
                raise ValueError("expected comma-separated numeric Telegram user ids")
            return frozenset(int(part) for part in ids)
        return value


@dataclass(frozen=True, slots=True)
class SpeechEndpoint:
    """The transcription endpoint the settings name (``Settings.speech``)."""

    base_url: str
    model: str
    api_key: SecretStr | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    stepan: StepanSettings
    agx: AgxSettings

    @property
    def llm_configured(self) -> bool:
        return bool(self.stepan.llm_model)

    @property
    def weather_url(self) -> str | None:
        """The forecast source's base URL; None when it is off."""
        url = self.stepan.weather_url
        return None if url == "off" else url

    @property
    def speech(self) -> SpeechEndpoint | None:
        """Where voice messages are transcribed, or None when nobody configured it.

        ``STEPAN_STT_MODEL`` switches it on. The base URL is ``STEPAN_STT_BASE_URL``,
        else the LLM's (``STEPAN_LLM_BASE_URL``); the key is ``STEPAN_STT_API_KEY``,
        else the LLM's key, but only when the base URL is the LLM's too: a key is
        never sent to a host it was not given for. No base URL at all: off (Stepan
        never picks a hosted endpoint on its own)."""
        stepan = self.stepan
        if not stepan.stt_model:
            return None
        if stepan.stt_base_url is not None:
            return SpeechEndpoint(
                str(stepan.stt_base_url).rstrip("/"), stepan.stt_model, stepan.stt_api_key
            )
        if stepan.llm_base_url is None:
            return None
        key = stepan.stt_api_key or stepan.llm_api_key
        return SpeechEndpoint(str(stepan.llm_base_url).rstrip("/"), stepan.stt_model, key)

    @property
    def integrations(self) -> dict[str, str]:
        """Configured integrations by display name (for /status and the platform agent)."""
        urls = (("farmOS", self.agx.farmos_url), ("ThingsBoard", self.agx.thingsboard_url))
        return {name: str(url) for name, url in urls if url is not None}


class ConfigError(Exception):
    """A setting is missing or malformed; the message names the variable."""


def load_settings() -> Settings:
    """Build the settings or raise ConfigError with one readable line per problem."""
    try:
        return Settings(stepan=StepanSettings(), agx=AgxSettings())
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    prefix = "AGX_" if exc.title == AgxSettings.__name__ else "STEPAN_"
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        name = prefix + "_".join(str(part) for part in error["loc"][:1]).upper()
        lines.append(f"{name}: {error['msg']}")
    return "; ".join(lines)


def sqlite_path(database_url: str) -> Path | None:
    """The file behind a SQLite URL (None for PostgreSQL or in-memory)."""
    if not database_url.startswith("sqlite"):
        return None
    path = database_url.split(":///", 1)[-1]
    return None if path in ("", ":memory:") else Path(path)
