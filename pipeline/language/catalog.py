"""Message catalogs: every user-facing line lives in ``pipeline/locales/<lang>.toml``.

Ukrainian is the source language; English is the second. A key missing from the
English catalog falls back to Ukrainian, so a half-translated key never crashes.

Counted words follow the language's CLDR plural rules (through Babel): a message whose
value is a table of CLDR categories is one plural message,

    times = { one = "{count} раз", few = "{count} рази", many = "{count} разів",
              other = "{count} разу" }

and :meth:`Catalog.plural` picks the form for the number («1 раз, 2 рази, 5 разів»);
English needs only ``one`` and ``other``. A missing category falls back to ``other``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from babel import Locale
from babel.numbers import format_decimal

from pipeline.rules import schema
from pipeline.types import Language

logger = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES: tuple[Language, ...] = ("uk", "en")
FALLBACK: Language = "uk"
#: CLDR plural categories; a table of these (with ``other``) is one plural message.
PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})

Message = str | list[str] | dict[str, str]


class _SafeDict(dict[str, Any]):
    """Leaves unknown placeholders visible instead of raising KeyError."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _is_plural(value: Mapping[str, Any]) -> bool:
    return "other" in value and set(value) <= PLURAL_CATEGORIES


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Message]:
    flat: dict[str, Message] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and _is_plural(value):
            flat[name] = {str(k): str(v) for k, v in value.items()}
        elif isinstance(value, Mapping):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


class Catalog:
    def __init__(self, messages: Mapping[Language, Mapping[str, Message]]) -> None:
        self._messages = messages
        self._locales = {lang: Locale.parse(lang) for lang in {*messages, FALLBACK}}

    @classmethod
    def load(cls, directory: Path = LOCALES_DIR) -> Catalog:
        messages: dict[Language, dict[str, Message]] = {}
        for lang in LANGUAGES:
            messages[lang] = _flatten(schema.read(directory / f"{lang}.toml"))
        return cls(messages)

    def has(self, lang: Language, key: str) -> bool:
        return key in self._messages.get(lang, {}) or key in self._messages[FALLBACK]

    def _raw(self, lang: Language, key: str) -> Message:
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
        if isinstance(raw, dict):
            template = raw["other"]
        else:
            template = raw[0] if isinstance(raw, list) else raw
        return template.format_map(_SafeDict(params))

    @property
    def languages(self) -> tuple[Language, ...]:
        """The languages the catalog has messages in."""
        return tuple(self._messages)

    def number(self, lang: Language, value: float) -> str:
        """A number as the language writes it: 12 500 and 2,5 in Ukrainian (CLDR)."""
        if type(value) is int and 0 <= value < 1000:
            return str(value)  # what CLDR writes in every language here, without Babel's cost
        return format_decimal(value, locale=self._locales.get(lang, self._locales[FALLBACK]))

    def plural(self, lang: Language, key: str, count: float, /, **params: Any) -> str:
        """The form of a plural message for ``count`` by the language's CLDR rules;
        ``{count}`` in it is the number as the language writes it."""
        forms = self._messages.get(lang, {}).get(key)
        if forms is None:
            # Not translated: the fallback's forms, chosen by the fallback's rules.
            lang, forms = FALLBACK, self._messages[FALLBACK].get(key)
        if not isinstance(forms, dict):
            # One form for every count (a unit such as «м/с»): the language's own.
            return self.text(lang, key, count=self.number(lang, count), **params)
        category = self._locales[lang].plural_form(abs(count))
        template = forms.get(category, forms["other"])
        return template.format_map(_SafeDict(params, count=self.number(lang, count)))

    def variant(self, lang: Language, key: str, seed: int, /, **params: Any) -> str:
        """One of several phrasings, chosen by ``seed`` so replies vary but tests can pin them."""
        raw = self._raw(lang, key)
        if isinstance(raw, dict):
            raw = raw["other"]
        options = raw if isinstance(raw, list) else [raw]
        return options[seed % len(options)].format_map(_SafeDict(params))

    def templates(self, lang: Language, key: str) -> tuple[str, ...]:
        """Every phrasing of ``key``, unformatted (the placeholder check, tests)."""
        raw = self._raw(lang, key)
        if isinstance(raw, dict):
            return tuple(raw.values())
        return tuple(raw) if isinstance(raw, list) else (raw,)

    def keys(self, lang: Language) -> set[str]:
        return set(self._messages.get(lang, {}))
