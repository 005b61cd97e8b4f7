"""Stable, readable ids from farmers' names: "Північне" -> "field:pivnichne".

Ukrainian national transliteration (2010), simplified to lowercase ASCII; Russian
letters that Ukrainian lacks are mapped too, since farmers write both.
"""

from __future__ import annotations

import re

_TRANSLIT = {
    "а": "a", "б": "b", "в": "v", "г": "h", "ґ": "g", "д": "d", "е": "e", "є": "ie",
    "ж": "zh", "з": "z", "и": "y", "і": "i", "ї": "i", "й": "i", "к": "k", "л": "l",
    "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
    "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ю": "iu",
    "я": "ia", "ё": "e", "ы": "y", "э": "e", "ъ": "", "'": "", "’": "", "ʼ": "",
}  # fmt: skip
_NON_SLUG = re.compile(r"[^a-z0-9]+")


def transliterate(text: str) -> str:
    return "".join(_TRANSLIT.get(char, char) for char in text.lower())


def slug(text: str) -> str:
    return _NON_SLUG.sub("-", transliterate(text)).strip("-")[:48]


def make_id(kind: str, name: str) -> str | None:
    """``kind:slug`` or None when the name has nothing to build an id from."""
    value = slug(name)
    return f"{kind}:{value}" if value else None


def split_names(text: str) -> list[str]:
    """ "Північне, Південне і поле 3" -> ["Північне", "Південне", "поле 3"]."""
    parts = re.split(r"[,;\n]+|\s+(?:і|й|та|и|and)\s+", text)
    return [part.strip(" .") for part in parts if part.strip(" .")]


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that puts «Поле 2» before «Поле 10»."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold())
        for part in re.split(r"(\d+)", name)
        if part
    )
