"""/me and operators' cards speak the farmer's language; counts follow CLDR plurals."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from pipeline.admin.cards import farm_card, my_memory, profile_card, topic_words
from pipeline.farm.naming import FarmNames, readable_id
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.profiles import FarmProfile, IotSensors, UserProfile

#: Anything that looks like an internal id: "tg:1001", "field:pole-3", "crop:soy".
_ID = re.compile(r"\b(?:tg|field|crop|farm|operation):\S")


@pytest.mark.parametrize(
    ("count", "uk", "en"),
    [
        (1, "1 раз", "1 time"),
        (2, "2 рази", "2 times"),
        (4, "4 рази", "4 times"),
        (5, "5 разів", "5 times"),
        (11, "11 разів", "11 times"),
        (21, "21 раз", "21 times"),
        (22, "22 рази", "22 times"),
        (0, "0 разів", "0 times"),
        (1.5, "1,5 разу", "1.5 times"),
        (12500, "12\u00a0500 разів", "12,500 times"),
    ],
)
def test_plural_forms_follow_cldr(catalog: Catalog, count: float, uk: str, en: str) -> None:
    assert catalog.plural("uk", "plural.times", count) == uk
    assert catalog.plural("en", "plural.times", count) == en


def test_plural_of_an_untranslated_key_uses_the_fallback_rules() -> None:
    catalog = Catalog(
        {
            "uk": {"n.days": {"one": "{count} день", "few": "{count} дні", "other": "{count} дн"}},
            "en": {},
        }
    )
    assert catalog.plural("en", "n.days", 3) == "3 дні"
    # A plural table read as a plain message gives its "other" form.
    assert catalog.text("uk", "n.days", count=7) == "7 дн"


def test_no_catalog_message_counts_with_brackets(catalog: Catalog) -> None:
    for lang in ("uk", "en"):
        for key in catalog.keys(lang):
            text = str(catalog._raw(lang, key))
            assert "(ів)" not in text and "(s)" not in text and "раз(и)" not in text, key


def _farmer() -> tuple[UserProfile, FarmProfile, FarmNames]:
    profile = UserProfile(
        user_id="tg:1001",
        name="Петро",
        interaction_count=12,
        last_seen=datetime(2026, 5, 4, 6, 30, tzinfo=UTC),
        known_intents=["greeting", "decision", "recording", "thanks"],
    )
    farm = FarmProfile(
        user_id="tg:1001",
        farm_name="Зоря",
        field_ids=["field:pole-10", "field:pivnichne", "field:pole-2"],
        crop_ids=["crop:sunflower", "crop:soy"],
        active_integrations=["iot"],
        iot_sensors=IotSensors(has_iot_integration=True, sensor_types=["soil_moisture"]),
    )
    names = FarmNames(
        fields={
            "field:pivnichne": "Північне",
            "field:pole-2": "Поле 2",
            "field:pole-10": "Поле 10",
        },
        crops={"crop:sunflower": "соняшник", "crop:soy": "соя"},
    )
    return profile, farm, names


def test_me_shows_names_words_and_purposes_never_ids(catalog: Catalog) -> None:
    profile, farm, names = _farmer()
    text = my_memory(profile, farm, names, Texts(catalog, "uk"))
    assert _ID.search(text) is None, text
    # Fields and crops by name, in the farm's order.
    assert catalog.text("uk", "me.line.fields", value="Поле 10, Північне, Поле 2") in text
    assert catalog.text("uk", "me.line.crops", value="Соняшник, Соя") in text
    # Intents as words; greetings and thanks are not "topics".
    assert catalog.text("uk", "me.line.topics", value="поради, записи операцій") in text
    for label in ("greeting", "decision", "recording", "thanks", "привітання"):
        assert label not in text
    # Counted with the right plural form, the last visit on the farm's clock (Kyiv, +3).
    assert catalog.text("uk", "me.line.talks", times="12 разів", when="04.05.2026 09:30") in text
    assert catalog.text("uk", "me.line.integrations", value="датчики на полях") in text
    assert "Вологість ґрунту" in text


def test_me_in_english_uses_english_words(catalog: Catalog) -> None:
    profile, farm, names = _farmer()
    profile = profile.model_copy(update={"preferred_language": "en", "interaction_count": 1})
    text = my_memory(profile, farm, names, Texts(catalog, "en"))
    assert _ID.search(text) is None, text
    assert "1 time," in text and "English" in text
    assert catalog.text("en", "me.line.topics", value="advice, recording operations") in text


def test_operator_cards_show_names_and_a_plain_telegram_id(catalog: Catalog) -> None:
    profile, farm, names = _farmer()
    card = profile_card(profile, Texts(catalog, "uk"), farm.timezone)
    assert "Telegram id: 1001" in card and "tg:" not in card
    assert "поради, записи операцій" in card
    farm_text = farm_card(farm, names, Texts(catalog, "uk"))
    assert _ID.search(farm_text) is None, farm_text
    assert "Поле 10, Північне, Поле 2" in farm_text and "Соняшник, Соя" in farm_text


def test_the_farms_oblast_is_shown_by_name_when_known(catalog: Catalog) -> None:
    profile, farm, names = _farmer()
    assert "Область" not in my_memory(profile, farm, names, Texts(catalog, "uk"))
    placed = FarmNames(names.fields, names.crops, region="Вінницька область")
    text = my_memory(profile, farm, placed, Texts(catalog, "uk"))
    assert catalog.text("uk", "me.line.region", value="Вінницька область") in text
    assert "Область: Вінницька область" in farm_card(farm, placed, Texts(catalog, "uk"))
    assert "Oblast: none" in farm_card(farm, names, Texts(catalog, "en"))


def test_ids_nothing_names_are_shown_as_words() -> None:
    names = FarmNames()
    assert names.field("field:pole-3") == "pole 3"
    assert names.crop("crop:winter-wheat") == "Winter wheat"
    assert readable_id("iot_api") == "iot api"


def test_topic_words_are_distinct_and_skip_unknown(catalog: Catalog) -> None:
    assert topic_words(["iot", "iot", "no-such", "ack"], Texts(catalog, "uk")) == ["дані датчиків"]
