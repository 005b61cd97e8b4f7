"""The style and level prefix of the system prompt reads as natural instructions in
both languages (issue 16 point 6): every level x style x language, rendered, has no
word repeated across a joint («Відповідай на рівні Відповідай технічно…») and no
instruction repeated between the level line and the style line."""

from __future__ import annotations

import re
import string

import pytest

from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, FarmProfile, UserProfile
from pipeline.replies.style import build_prefix
from tests.shared import catalog as shared_catalog

CATALOG = shared_catalog()
_WORD = re.compile(r"[^\W\d_]+")
#: Words too short to be an instruction's content ("і", "з", "the", "and").
MIN_LEN = 4


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text) if len(w) >= MIN_LEN]


def _joints(template: str) -> list[tuple[str, str]]:
    """(template text before, placeholder) for every placeholder of ``template``."""
    return [
        (literal, field)
        for literal, field, _, _ in string.Formatter().parse(template)
        if field is not None
    ]


@pytest.mark.parametrize("lang", ["uk", "en"])
@pytest.mark.parametrize("level", EXPERTISE_LEVELS)
@pytest.mark.parametrize("style", STYLES)
def test_every_combination_reads_without_repeats(lang: str, level: str, style: str) -> None:
    profile = UserProfile(
        user_id="tg:1",
        name="Олена",
        expertise_level=level,  # type: ignore[arg-type]
        preferred_style=style,  # type: ignore[arg-type]
    )
    farm = FarmProfile(user_id="tg:1", farm_name="Зоря")
    prefix = build_prefix(profile, farm, Texts(CATALOG, lang))  # type: ignore[arg-type]
    level_line = CATALOG.text(lang, f"style.level.{level}")  # type: ignore[arg-type]
    style_line = CATALOG.text(lang, f"style.style.{style}")  # type: ignore[arg-type]
    assert prefix.startswith(f"{level_line}\n{style_line}\n")
    # The level says how much to explain, the style how long: no shared instruction.
    instructions = _words(level_line) + _words(style_line)
    assert len(instructions) == len(set(instructions)), (lang, level, style, prefix)
    # The instruction lines (the farm summary's values may repeat "немає").
    for line in prefix.splitlines()[:3]:
        words = _words(line)
        assert len(words) == len(set(words)), (lang, line)
        assert line[:1].isupper() and line.rstrip()[-1] in ".)", (lang, line)


@pytest.mark.parametrize("lang", ["uk", "en"])
def test_no_placeholder_is_introduced_by_its_own_words(lang: str, catalog: Catalog) -> None:
    """The text a placeholder follows shares no word with any value it may take."""
    [template] = catalog.templates(lang, "style.prefix")  # type: ignore[arg-type]
    values = {
        "level": [catalog.text(lang, f"style.level.{x}") for x in EXPERTISE_LEVELS],  # type: ignore[arg-type]
        "style": [catalog.text(lang, f"style.style.{x}") for x in STYLES],  # type: ignore[arg-type]
    }
    for literal, field in _joints(template):
        before = set(_words(literal.rsplit("\n", 1)[-1]))
        for value in values.get(field, []):
            assert not before & set(_words(value)), (lang, field, literal, value)
