"""A person addressed by name: the vocative case in Ukrainian (issue 30 point 1).

A Ukrainian greets «Вітаю, Олено Петрівно!», not «Вітаю, Олена Петрівна!»: the name
that addresses someone takes the vocative (кличний відмінок). The forms come from the
Ukrainian dictionary already loaded for the term grammar (pymorphy3's VESUM-based
one, grammeme ``voct``), not from ending rules: «Ігор» -> «Ігорю», «Олег» -> «Олегу»,
«Марко» -> «Марку», «Федір» -> «Федоре» are the dictionary's, not a guess.

Only first names and patronymics decline. A surname stays as written, and so does
every word the dictionary does not know as a person's name (a Russian spelling such
as «Сергей», a Latin «Olena», a nickname, an initial): a wrong form is worse than the
nominative, so anything unsure is left alone. An English reply keeps the name.

Use :func:`address` wherever a name speaks to the person (greetings, farewells,
openers, «Добре, Олено, запам'ятав»); where a name is a fact («Ім'я: Олена», «Ви —
Олена») the nominative stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pymorphy3.analyzer import Parse

from pipeline.language.dictionaries import analyzer
from pipeline.text import APOSTROPHES
from pipeline.types import Language

__all__ = ["address"]

#: The dictionary spells the apostrophe as ASCII ``'``.
_TO_ASCII = str.maketrans({ch: "'" for ch in APOSTROPHES})
#: A word of a name: Cyrillic letters, apostrophes inside. Anything else (Latin, digits,
#: an initial's dot) is not declined.
_WORD = re.compile(r"^[а-щьюяґєіїА-ЩЬЮЯҐЄІЇ]+(?:'[а-щьюяґєіїА-ЩЬЮЯҐЄІЇ]+)*$")
#: Words and the separators between them (spaces, hyphens of a double name), kept as written.
_PIECES = re.compile(r"(\s+|-)")
_GENDERS = ("masc", "femn")


def address(name: str, lang: Language) -> str:
    """``name`` as it addresses its bearer in a reply in ``lang``: the vocative of
    each first name and patronymic in Ukrainian, everything else as written."""
    if lang != "uk" or not name.strip():
        return name
    pieces = _PIECES.split(name)
    words = {i: piece for i, piece in enumerate(pieces) if _WORD.match(piece.translate(_TO_ASCII))}
    candidates = {i: _candidates(word) for i, word in words.items()}
    gender = _shared_gender(found for found in candidates.values() if found)
    for i, found in candidates.items():
        vocative = _vocative(found, gender)
        if vocative is not None:
            pieces[i] = _as_written(vocative, pieces[i])
    return "".join(pieces)


def _candidates(word: str) -> list[Parse]:
    """The dictionary's readings of ``word`` as a person's name in the nominative
    singular: first names and patronymics, the declined reading first."""
    parses = [p for p in analyzer("uk").parse(word.translate(_TO_ASCII).lower()) if p.is_known]
    nominative = [p for p in parses if "nomn" in p.tag and "plur" not in p.tag]
    named = [p for p in nominative if {"Name", "Patr"} & p.tag.grammemes]
    if not named and word[:1].isupper() and not any("Surn" in p.tag for p in parses):
        # A first name the dictionary lists without the Name mark («Богдан»), or a word for
        # a person before it («Пан Іван»): a noun for someone, never a surname.
        named = [p for p in nominative if p.tag.POS == "NOUN" and "anim" in p.tag]
    # An indeclinable reading («Марко» as Fixd) last: the declined one is the usual.
    return sorted(named, key=lambda p: "Fixd" in p.tag)


def _shared_gender(found: Iterable[list[Parse]]) -> str | None:
    """The gender every declinable word can share, else none: a name either gender
    bears («Женя», «Саша») takes the one its patronymic settles («Женя Олегович»)."""
    common = set(_GENDERS)
    for parses in found:
        common &= {g for p in parses for g in _GENDERS if g in p.tag}
    return next(iter(common)) if len(common) == 1 else None


def _vocative(parses: list[Parse], gender: str | None) -> str | None:
    """The first reading's vocative (of the shared gender when there is one)."""
    for parse in parses:
        if gender is not None and gender not in parse.tag:
            continue
        form = parse.inflect({"voct"})
        if form is not None and "voct" in form.tag:
            return str(form.word)
    return None


def _as_written(form: str, written: str) -> str:
    """``form`` (lower case, ASCII apostrophe) in the case and apostrophe of ``written``."""
    mark = next((ch for ch in written if ch in APOSTROPHES), "'")
    form = form.replace("'", mark)
    if written.isupper() and len(written) > 1:
        return form.upper()
    if written[:1].isupper():
        return form[:1].upper() + form[1:]
    return form
