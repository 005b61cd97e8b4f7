"""Which catalog a reply uses. Ukrainian first: Russian and surzhyk get Ukrainian."""

from __future__ import annotations

from pipeline.types import Language


def detect_language(text: str, *, fallback: Language = "uk") -> Language:
    """English only when the text is written in Latin letters and no Cyrillic."""
    latin = cyrillic = 0
    for char in text:
        if not char.isalpha():
            continue
        if "a" <= char.lower() <= "z":
            latin += 1
        elif "\u0400" <= char <= "\u04ff":
            cyrillic += 1
    if cyrillic:
        return "uk"
    if latin >= 2:
        return "en"
    return fallback


def language_from_telegram(language_code: str | None) -> Language:
    """Telegram's client language, used before the user has written anything."""
    return "en" if (language_code or "").lower().startswith("en") else "uk"
