"""The outside services the bot reads from, built from the settings: the forecast
source and the point reader (docs/weather.md), the transcription endpoint
(docs/voice.md)."""

from __future__ import annotations

import httpx

from bot.config import Settings
from pipeline.rulebook import Rulebook
from pipeline.speech import Listener, SpeechSettings, Transcriber
from pipeline.weather.client import OpenMeteo
from pipeline.weather.geo import Locator

__all__ = ["listener", "locator", "weather_source"]


def locator(rules: Rulebook) -> Locator:
    """What a point tells, offline: its timezone (timezonefinder's packaged
    boundaries, imported here: only a bot that places farms loads them) and its
    oblast (docs/weather.md)."""
    from timezonefinder import TimezoneFinder

    return Locator(TimezoneFinder(), rules.knowledge.data.regions)


def weather_source(settings: Settings, http: httpx.AsyncClient) -> OpenMeteo | None:
    """Open-Meteo at STEPAN_WEATHER_URL with STEPAN_WEATHER_API_KEY; None when off."""
    url = settings.weather_url
    if url is None:
        return None
    key = settings.stepan.weather_api_key
    return OpenMeteo(http, url, key.get_secret_value() if key is not None else None)


def listener(settings: Settings, http: httpx.AsyncClient) -> Listener:
    """Voice messages: transcribed where the settings name an endpoint (docs/voice.md),
    each request with its own timeout (the shared client's is the memory-service's)."""
    endpoint = settings.speech
    transcriber = None
    if endpoint is not None:
        speech = SpeechSettings(
            endpoint.base_url, endpoint.model, endpoint.api_key, settings.stepan.stt_timeout_s
        )
        transcriber = Transcriber(http, speech)
    return Listener(transcriber, max_seconds=settings.stepan.voice_max_seconds)
