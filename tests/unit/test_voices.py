"""Level and role change what a farmer reads without an LLM (issue 11 point 3): every
light template renders differently for a novice (the template and what its terms
mean), an intermediate (the template) and an expert (a terse, technical variant
without explanations), in every style and both languages; operators read the
expert's voice."""

from __future__ import annotations

import re

import pytest

from pipeline.intents import Intent
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import STYLES, FarmProfile, UserProfile
from pipeline.replies.light import LightRequest, TemplateResponder
from pipeline.replies.voice import (
    EXPERT,
    INTERMEDIATE,
    NOVICE,
    OPERATOR,
    first_key,
    leveled,
    voice_of,
)
from pipeline.types import DepthDecision, Language

LIGHT = (
    Intent.GREETING,
    Intent.THANKS,
    Intent.ACK,
    Intent.FAREWELL,
    Intent.WHOAMI,
    Intent.HELP,
    Intent.SMALLTALK,
    Intent.OFFTOPIC,
    Intent.CLARIFY,
)
FIRST_CONTACT = "greeting_new"  # the greeting of someone Stepan does not know yet
#: What makes a reply technical: a number with a unit.
_MEASURED = re.compile(r"\d+(?:[.,]\d+)?\s*(?:л/га|l/ha|мм|mm|%)")


def render(
    catalog: Catalog,
    intent: str,
    level: str,
    style: str,
    lang: Language,
    *,
    operator: bool = False,
    first_contact: bool = False,
) -> str:
    profile = UserProfile.default("tg:1").model_copy(
        update={
            "name": "Петро",
            "expertise_level": level,
            "preferred_style": style,
            "interaction_count": 4,
        }
    )
    decision = DepthDecision("light", Intent(intent), (), 1.0, "test")
    request = LightRequest(
        decision, profile, _farm(), lang, operator, first_contact=first_contact, text=""
    )
    return TemplateResponder(catalog).answer(request)


def _farm() -> FarmProfile:
    return FarmProfile(farm_id="farm:1", user_id="tg:1")


def cases() -> list[tuple[str, str, Language, bool]]:
    out = [(str(i), style, lang, False) for i in LIGHT for style in STYLES for lang in ("uk", "en")]
    out += [("greeting", style, lang, True) for style in STYLES for lang in ("uk", "en")]
    return out


@pytest.mark.parametrize(("intent", "style", "lang", "first"), cases())
def test_each_light_intent_reads_differently_per_level(
    catalog: Catalog, intent: str, style: str, lang: Language, first: bool
) -> None:
    novice, middle, expert = (
        render(catalog, intent, level, style, lang, first_contact=first)
        for level in (NOVICE, INTERMEDIATE, EXPERT)
    )
    explained = FIRST_CONTACT if first else intent
    explanation = catalog.text(lang, f"level.novice.why.light.{explained}")
    # A novice: the same answer, then what its terms mean and why (whoami names the
    # novice's own level in it).
    same = middle
    if intent == Intent.WHOAMI:
        novice_label = catalog.text(lang, "expertise.novice")
        same = middle.replace(catalog.text(lang, "expertise.intermediate"), novice_label)
    assert novice == f"{same}\n\n{explanation}"
    # An expert: another, terse text, without the novice's explanations.
    assert expert != middle and explanation not in expert
    assert not any(
        catalog.text(lang, key) in expert
        for key in catalog.keys(lang)
        if key.startswith("level.novice.why.")
    )
    # An operator reads the expert's voice (whoami also says the level and the role).
    operator = render(
        catalog, intent, INTERMEDIATE, style, lang, operator=True, first_contact=first
    )
    if intent == Intent.WHOAMI:
        assert operator == catalog.text(
            lang,
            "level.expert.light.whoami",
            name="Петро",
            expertise=catalog.text(lang, "expertise.intermediate"),
            style=catalog.text(lang, f"styles.{style}"),
            times=catalog.plural(lang, "plural.times", 4),
            operator=catalog.text(lang, "light.whoami_operator"),
        )
    else:
        assert operator == expert


@pytest.mark.parametrize("lang", ["uk", "en"])
@pytest.mark.parametrize("style", STYLES)
def test_an_expert_help_gives_terms_and_numbers_a_novice_explains_them(
    catalog: Catalog, style: str, lang: Language
) -> None:
    expert = render(catalog, "help", EXPERT, style, lang)
    novice = render(catalog, "help", NOVICE, style, lang)
    if style != "brief":
        assert _MEASURED.search(expert), expert
    assert catalog.text(lang, "level.novice.why.light.help") in novice


def test_styles_still_differ_within_a_level(catalog: Catalog) -> None:
    for level in (NOVICE, INTERMEDIATE, EXPERT):
        greetings = {render(catalog, "greeting", level, style, "uk") for style in STYLES}
        assert len(greetings) == len(STYLES), level


def test_every_override_and_explanation_is_in_both_languages(catalog: Catalog) -> None:
    uk = {k for k in catalog.keys("uk") if k.startswith("level.")}
    en = {k for k in catalog.keys("en") if k.startswith("level.")}
    assert uk == en
    # An override replaces a key that exists.
    for key in uk:
        for level in (NOVICE, EXPERT, OPERATOR):
            prefix = f"level.{level}."
            if key.startswith(prefix) and not key.startswith("level.novice.why."):
                base = key.removeprefix(prefix)
                kind, *style, name = base.split(".")
                # A style's own override stands for the style's key or the plain one.
                plain = f"{kind}.{name}" if kind == "light" and style else base
                assert catalog.has("uk", base) or catalog.has("uk", plain), key


def test_the_voice_of_a_profile(catalog: Catalog) -> None:
    assert voice_of("novice", operator=False) == NOVICE
    assert voice_of("novice", operator=True) == OPERATOR
    assert voice_of("something", operator=False) == INTERMEDIATE
    # An operator falls back to the expert's overrides; an intermediate has none.
    assert (
        leveled(Texts(catalog, "uk"), "compose.no_iot", OPERATOR) == "level.expert.compose.no_iot"
    )
    assert leveled(Texts(catalog, "uk"), "compose.no_iot", INTERMEDIATE) == "compose.no_iot"
    keys = ("light.brief.greeting", "light.greeting")
    assert first_key(Texts(catalog, "uk"), keys, EXPERT) == "level.expert.light.brief.greeting"
    assert first_key(Texts(catalog, "uk"), keys, NOVICE) == "light.brief.greeting"
