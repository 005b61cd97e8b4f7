"""Message catalogs: every user-facing line lives in ``pipeline/locales/<lang>.toml``.

Ukrainian is the source language; English is the second. A key missing from the
English catalog falls back to Ukrainian, so a half-translated key never crashes.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.types import Language

logger = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
LANGUAGES: tuple[Language, ...] = ("uk", "en")
FALLBACK: Language = "uk"


class _SafeDict(dict[str, Any]):
    """Leaves unknown placeholders visible instead of raising KeyError."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, str | list[str]]:
    flat: dict[str, str | list[str]] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


class Catalog:
    def __init__(self, messages: Mapping[Language, Mapping[str, str | list[str]]]) -> None:
        self._messages = messages

    @classmethod
    def load(cls, directory: Path = LOCALES_DIR) -> Catalog:
        messages: dict[Language, dict[str, str | list[str]]] = {}
        for lang in LANGUAGES:
            with (directory / f"{lang}.toml").open("rb") as handle:
                messages[lang] = _flatten(tomllib.load(handle))
        return cls(messages)

    def has(self, lang: Language, key: str) -> bool:
        return key in self._messages.get(lang, {}) or key in self._messages[FALLBACK]

    def _raw(self, lang: Language, key: str) -> str | list[str]:
        value = self._messages.get(lang, {}).get(key)
        if value is None:
            value = self._messages[FALLBACK].get(key)
        if value is None:
            logger.error("i18n: missing key %s", key)
            return key
        return value

    def text(self, lang: Language, key: str, /, **params: Any) -> str:
        """One message; for a list of variants, the first."""
        raw = self._raw(lang, key)
        template = raw[0] if isinstance(raw, list) else raw
        return template.format_map(_SafeDict(params))

    def variant(self, lang: Language, key: str, seed: int, /, **params: Any) -> str:
        """One of several phrasings, chosen by ``seed`` so replies vary but tests can pin them."""
        raw = self._raw(lang, key)
        options = raw if isinstance(raw, list) else [raw]
        return options[seed % len(options)].format_map(_SafeDict(params))

    def templates(self, lang: Language, key: str) -> tuple[str, ...]:
        """Every phrasing of ``key``, unformatted (the placeholder check, tests)."""
        raw = self._raw(lang, key)
        return tuple(raw) if isinstance(raw, list) else (raw,)

    def keys(self, lang: Language) -> set[str]:
        return set(self._messages.get(lang, {}))
