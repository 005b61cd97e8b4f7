"""The Ukrainian and Russian morphological dictionaries (pymorphy3's), loaded once
per process.

They are read-only data (about 45 MB for both), not rules: every grammar that asks
for word forms (pipeline/grammar/morphology.py) shares the one loaded copy, as it
would share a file on disk. A missing dictionary package fails at start-up.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

import pymorphy3

__all__ = ["DICTIONARY_LANGUAGES", "DictionaryLanguage", "analyzer"]

DictionaryLanguage = Literal["uk", "ru"]
DICTIONARY_LANGUAGES: tuple[DictionaryLanguage, ...] = ("uk", "ru")


@cache
def analyzer(lang: DictionaryLanguage) -> pymorphy3.MorphAnalyzer:
    """The analyser of ``lang``'s dictionary (loaded on first use, then shared)."""
    return pymorphy3.MorphAnalyzer(lang=lang)
