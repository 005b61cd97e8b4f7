"""Message catalogs, language choice, style prefix, templates."""

from __future__ import annotations

import re

import pytest
from babel import Locale
from babel.numbers import format_decimal

from pipeline.farm.naming import FarmNames
from pipeline.language.catalog import Catalog
from pipeline.language.choice import detect_language, language_from_telegram
from pipeline.language.texts import Texts
from pipeline.profiles import EXPERTISE_LEVELS, STYLES, FarmProfile, UserProfile
from pipeline.replies.light import LightRequest, TemplateResponder
from pipeline.replies.style import build_prefix
from pipeline.types import DepthDecision


def test_catalogs_have_the_same_keys_and_placeholders(catalog: Catalog) -> None:
    assert catalog.keys("uk") == catalog.keys("en")
    for key in catalog.keys("uk"):
        uk = set(re.findall(r"{(\w+)}", " ".join(catalog.templates("uk", key))))
        en = set(re.findall(r"{(\w+)}", " ".join(catalog.templates("en", key))))
        assert uk == en, key


def test_missing_key_does_not_raise(catalog: Catalog) -> None:
    assert catalog.text("uk", "no.such.key") == "no.such.key"
    assert catalog.text("uk", "light.whoami", name="Іван").startswith("Ви — Іван")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("привіт", "uk"),
        ("привет, как дела", "uk"),
        ("hello Stepan", "en"),
        ("log spraying on field 9", "en"),
        ("👍", "uk"),
        ("ok", "en"),
    ],
)
def test_detect_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_language_from_telegram() -> None:
    assert language_from_telegram("en-GB") == "en"
    assert language_from_telegram("ru") == "uk"
    assert language_from_telegram(None) == "uk"


@pytest.mark.parametrize("level", EXPERTISE_LEVELS)
@pytest.mark.parametrize("style", STYLES)
def test_prefix_covers_every_level_and_style(catalog: Catalog, level: str, style: str) -> None:
    profile = UserProfile(user_id="tg:1", name="Іван", expertise_level=level, preferred_style=style)  # type: ignore[arg-type]
    farm = FarmProfile(user_id="tg:1", farm_name="Калинівка", field_ids=["field:north-01"])
    uk = build_prefix(profile, farm, Texts(catalog, "uk"))
    en = build_prefix(profile, farm, Texts(catalog, "en"))
    assert catalog.text("uk", f"style.level.{level}") in uk
    assert catalog.text("uk", f"style.style.{style}") in uk
    assert catalog.text("en", f"style.level.{level}") in en
    assert "Іван" in uk and "Калинівка" in uk and "north 01" in en
    assert "field:" not in uk + en and "tg:" not in uk + en


def test_prefix_names_fields_crops_and_phase_in_words(catalog: Catalog) -> None:
    """No raw id reaches the LLM: fields and crops by the farm's own names (ids as
    words without a dictionary entry), the phase by its word."""
    profile = UserProfile(user_id="tg:1001", name="Оксана")
    farm = FarmProfile(
        user_id="tg:1001",
        field_ids=["field:pivnichne", "field:pole-3"],
        crop_ids=["crop:sunflower"],
        seasonal_context={"current_phase": "sowing"},  # type: ignore[arg-type]
    )
    names = FarmNames({"field:pivnichne": "Північне"}, {"crop:sunflower": "соняшник"})
    prefix = build_prefix(profile, farm, Texts(catalog, "uk"), names)
    assert "Північне, pole 3" in prefix and "Соняшник" in prefix  # a crop with a capital
    assert catalog.text("uk", "phase.sowing") in prefix
    assert not any(raw in prefix for raw in ("field:", "crop:", "tg:1001", "sowing"))


def test_prefix_without_name_uses_default_address(catalog: Catalog) -> None:
    prefix = build_prefix(
        UserProfile(user_id="tg:1"), FarmProfile(user_id="tg:1"), Texts(catalog, "uk")
    )
    assert "друже" in prefix and "ще невідомий" in prefix


def test_prefix_fail_safe_is_empty(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> str:
        raise RuntimeError("catalog broken")

    monkeypatch.setattr(catalog, "text", boom)
    assert (
        build_prefix(UserProfile(user_id="tg:1"), FarmProfile(user_id="tg:1"), Texts(catalog, "uk"))
        == ""
    )


def _light(intent: str, **profile: object) -> LightRequest:
    return LightRequest(
        decision=DepthDecision("light", intent, (), 1.0, "test"),
        profile=UserProfile(user_id="tg:1", **profile),  # type: ignore[arg-type]
        farm=FarmProfile(user_id="tg:1"),
        lang="uk",
        is_operator=False,
        first_contact=False,
    )


def test_greeting_is_personal(catalog: Catalog) -> None:
    responder = TemplateResponder(catalog)
    # A greeting addresses the farmer: the vocative (issue 30); /whoami states the name.
    assert "Оксано" in responder.answer(_light("greeting", name="Оксана"))
    assert "друже" in responder.answer(_light("greeting"))
    assert "Оксана." in responder.answer(_light("whoami", name="Оксана"))


def test_every_light_intent_has_a_template(catalog: Catalog) -> None:
    for intent in (
        "greeting",
        "thanks",
        "ack",
        "farewell",
        "whoami",
        "help",
        "smalltalk",
        "offtopic",
        "clarify",
    ):
        assert catalog.has("uk", f"light.{intent}"), intent
        assert catalog.has("en", f"light.{intent}"), intent


def test_whoami_shows_profile(catalog: Catalog) -> None:
    text = TemplateResponder(catalog).answer(
        _light("whoami", name="Петро", expertise_level="expert", interaction_count=7)
    )
    # An expert reads the terse variant (pipeline/replies/voice.py).
    assert text == catalog.text(
        "uk",
        "level.expert.light.whoami",
        name="Петро",
        expertise=catalog.text("uk", "expertise.expert"),
        style=catalog.text("uk", "styles.conversational"),
        times="7 разів",
        operator="",
    )


def test_unknown_intent_falls_back(catalog: Catalog) -> None:
    responder = TemplateResponder(catalog)
    text = responder.answer(_light("no-such-intent", expertise_level="intermediate"))
    assert text == catalog.text("uk", "light.fallback")
    # A new user is a novice (issue 11 point 2): the fallback comes with its explanation.
    explained = catalog.text("uk", "level.novice.why.light.fallback")
    assert responder.answer(_light("no-such-intent")) == f"{text}\n\n{explained}"


def test_style_changes_the_template(catalog: Catalog) -> None:
    responder = TemplateResponder(catalog)
    level = "intermediate"  # the style's own effect, without a novice's explanations
    brief = responder.answer(
        _light("greeting", name="Іван", preferred_style="brief", expertise_level=level)
    )
    detailed = responder.answer(
        _light("greeting", name="Іван", preferred_style="detailed", expertise_level=level)
    )
    usual = responder.answer(_light("greeting", name="Іван", expertise_level=level))
    assert brief == "Привіт, Іване!"
    assert len(detailed) > len(usual) > len(brief)
    # A style without its own variant of an intent falls back to the usual one.
    ack = _light("ack", preferred_style="brief", expertise_level=level)
    assert responder.answer(ack) == catalog.variant("uk", "light.ack", 0)


def test_small_whole_numbers_are_written_as_babel_writes_them(catalog: Catalog) -> None:
    # Catalog.number skips Babel for 0..999 (the counts of most replies): the short
    # way must write them exactly as CLDR does in every catalog language.
    assert catalog.languages
    for lang in catalog.languages:
        locale = Locale.parse(lang)
        for value in (*range(1000), 1000, 12500, 2.5, -3):
            assert catalog.number(lang, value) == format_decimal(value, locale=locale)
