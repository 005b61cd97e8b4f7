"""Retrieval: the question's crop, topic and region, in any of the farmers' languages,
find the right card; a crop without cards never gets another crop's."""

from __future__ import annotations

import pytest

from pipeline.farm.dictionary import load_shared_crops
from pipeline.knowledge import KnowledgeBase
from pipeline.knowledge.index import stems
from tests.shared import rulebook

KB: KnowledgeBase = rulebook().knowledge
CROPS_WITH_CARDS = set(KB.data.crops)
#: Shared crops that name no card and are no generic form of one that has cards.
CARDLESS = [
    entry
    for entry in load_shared_crops()
    if entry.canonical_id not in CROPS_WITH_CARDS and entry.canonical_id not in KB.data.variants
]


@pytest.mark.parametrize(
    "question",
    [
        "норма висіва соняшника",
        "сколько сеять подсолнечника",
        "sunflower seeding rate",
        "яка норма висіву соняшнику?",
        "what is the seeding rate for sunflower?",
        "скока сіять соняха на гектар",
    ],
)
def test_every_language_finds_the_same_card(question: str) -> None:
    lookup = KB.lookup(question)
    assert [card.id for card in lookup.cards] == ["sunflower.seeding_rate"]
    assert lookup.confident


def test_region_gives_the_zone_and_the_winter_crop_card() -> None:
    lookup = KB.lookup("коли краще сіяти озиму пшеницю на Полтавщині?")
    assert [card.id for card in lookup.cards] == ["winter-wheat.sowing_window"]
    assert lookup.zone == "forest_steppe"
    assert lookup.region is not None and lookup.region.id == "poltava"


def test_the_farm_region_is_used_when_the_question_names_none() -> None:
    assert KB.lookup("коли сіяти кукурудзу?", farm_region="Херсонська").zone == "steppe"
    assert KB.lookup("коли сіяти кукурудзу?", farm_region="chernihiv").zone == "polissia"
    asked = KB.lookup("коли сіяти кукурудзу на Волині?", farm_region="Херсонська")
    assert asked.zone == "polissia"


@pytest.mark.parametrize("entry", CARDLESS, ids=lambda entry: entry.canonical_id)
def test_a_crop_without_cards_never_gets_another_crops_card(entry: object) -> None:
    name = entry.display  # type: ignore[attr-defined]
    for question in (f"коли сіяти {name}?", f"норма висіву {name}", f"хвороби {name}"):
        lookup = KB.lookup(question, farm_crops=["crop:sunflower"], previous_crop="crop:maize")
        assert all(card.crop is None for card in lookup.cards), (question, lookup.cards)
        assert not lookup.confident
        assert lookup.reason == "no_card_for_crop"


def test_generic_barley_gives_both_forms_and_a_qualifier_picks_one() -> None:
    both = KB.lookup("коли сіяти ячмінь?")
    assert {card.crop for card in both.cards} == {"crop:winter-barley", "crop:spring-barley"}
    spring = KB.lookup("норма висіву ячменю ярого")
    assert [card.id for card in spring.cards] == ["spring-barley.seeding_rate"]
    assert [c.id for c in KB.lookup("блішка на ярому ячмені").cards] == ["spring-barley.pests"]


@pytest.mark.parametrize("question", ["када сіять рапс озимий", "коли сіяти озимий ріпак"])
def test_a_season_word_after_a_crop_qualifies_it(question: str) -> None:
    # «озимий» is the rapeseed's season, not «озимь» (winter wheat) as a second crop.
    lookup = KB.lookup(question)
    assert [card.crop for card in lookup.cards] == ["crop:winter-rapeseed"]


def test_spring_wheat_is_not_answered_with_winter_wheat() -> None:
    lookup = KB.lookup("коли сіяти яру пшеницю?")
    assert lookup.cards == ()
    assert lookup.crop == "crop:spring-wheat"


def test_the_conversation_and_the_farm_supply_a_missing_crop() -> None:
    assert KB.lookup("а норма висіву?", previous_crop="crop:maize").crop == "crop:maize"
    only = KB.lookup("коли збирати?", farm_crops=["crop:potato"])
    assert [card.id for card in only.cards] == ["potato.harvest"]
    assert only.crop_source == "farm" and only.confidence < 1.0
    several = KB.lookup("яка норма висіву?", farm_crops=["crop:sunflower", "crop:maize"])
    assert several.cards == () and several.reason == "ambiguous_crop"
    assert set(several.candidates) == {"crop:sunflower", "crop:maize"}


def test_a_pest_name_alone_finds_its_crop_when_only_one_crop_has_it() -> None:
    lookup = KB.lookup("як боротися з вовчком?")
    assert [card.id for card in lookup.cards] == ["sunflower.weeds"]
    assert lookup.reason == "keyword" and lookup.confidence < 1.0
    assert lookup.items["sunflower.weeds"] == (0,)
    shared = KB.lookup("дротяник")
    assert shared.cards == () and shared.reason == "ambiguous_crop"
    assert "crop:maize" in shared.candidates and "crop:potato" in shared.candidates


def test_an_exact_word_is_not_read_as_a_typo_of_another() -> None:
    """«бур'яни» are weeds; only a typo would make them «буряки»."""
    lookup = KB.lookup("бур'яни в буряках")
    assert [card.id for card in lookup.cards] == ["sugar-beet.weeds"]


def test_predecessor_volunteer_and_price_questions() -> None:
    after = KB.lookup("чи можна сіяти соняшник після соняшнику")
    assert after.topic == "rotation" and after.predecessor == "crop:sunflower"
    assert [card.id for card in after.cards] == ["sunflower.rotation"]
    follows = KB.lookup("що посіяти після гороху")
    assert follows.mode == "after" and [card.id for card in follows.cards] == ["peas.rotation"]
    volunteer = KB.lookup("падалиця соняшника в пшениці")
    assert [card.id for card in volunteer.cards] == ["winter-wheat.weeds"]
    price = KB.lookup("скільки коштує насіння кукурудзи?")
    assert price.topic == "prices" and price.cards == ()


def test_general_topics_take_the_crop_for_its_item() -> None:
    lookup = KB.lookup("скільки води треба кукурудзі?")
    assert [card.id for card in lookup.cards] == ["general.irrigation"]
    assert lookup.crop == "crop:maize"
    assert KB.lookup("при якій температурі можна обприскувати гербіцидом").topic == "spraying"


def test_sow_now_mode_numbers_and_places_are_read() -> None:
    lookup = KB.lookup("чи можна сьогодні сіяти кукурудзу? ґрунт 11 градусів")
    assert lookup.mode == "sow_now" and lookup.temperature_c == 11
    dated = KB.lookup("can I plant soybeans on May 3?")
    assert dated.day == (5, 3) and dated.mode == "sow_now"
    area = KB.lookup("скільки насіння соняшнику на 12,5 га")
    assert area.area_ha == 12.5 and area.mode == "answer"
    field = KB.lookup("скільки насіння на поле 3?", previous_crop="crop:sunflower")
    assert field.field_words[:2] == ("поле", "3")


def test_the_full_text_index_ranks_on_words_alone() -> None:
    hits = KB.index.search([], stems("заразиха вовчок"), crops=None)
    assert hits and hits[0].card == "sunflower.weeds"
    only_general = KB.index.search([], stems("вітер обприскування"), crops=["general"])
    assert only_general and only_general[0].card == "general.spraying"


def test_nothing_understood_is_not_answered() -> None:
    lookup = KB.lookup("яка погода завтра")
    assert lookup.cards == () and not lookup.confident


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("попелиця на пшениці, коли обприскувати", "pests"),
        ("чим обприскати соняшник від вовчка", "weeds"),
        ("фомоз на ріпаку чим обприскати", "diseases"),
    ],
)
def test_a_named_pest_weed_or_disease_says_what_a_spraying_is_against(
    question: str, topic: str
) -> None:
    assert KB.lookup(question).topic == topic
    # ... while spraying alone is about the weather to spray in.
    assert KB.lookup("коли краще обприскувати пшеницю").topic == "spraying"


@pytest.mark.parametrize(
    "question",
    [
        "при якій вологості косити ріпак",
        "коли косити ячмінь у валки",
        "when to combine soybeans",
        "при какой влажности молотить пшеницу",
    ],
)
def test_any_harvest_verb_asks_about_the_harvest(question: str) -> None:
    assert KB.lookup(question).topic == "harvest"
    assert KB.claim(question) == 2


@pytest.mark.parametrize("question", ["чи не рано сіяти сою?", "чи не пізно садити картоплю"])
def test_too_early_or_late_to_sow_is_a_sow_now_question(question: str) -> None:
    lookup = KB.lookup(question)
    assert (lookup.topic, lookup.mode) == ("sowing_window", "sow_now")


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("скільки фосфору під сою", "nutrition"),
        ("калієм підживлювати картоплю?", "nutrition"),
        ("на скільки сантиметрів заробляти кукурудзу", "depth_spacing"),
    ],
)
def test_every_case_of_a_topic_word(question: str, topic: str) -> None:
    assert KB.lookup(question).topic == topic


@pytest.mark.parametrize(
    "question",
    ["кукурудза вилягає, чому?", "чому соняшник погано зійшов", "why is my corn lodging"],
)
def test_a_crops_symptom_is_a_sure_question_without_a_card(question: str) -> None:
    # Sure enough to route to the advisor, and answered honestly: no card, no numbers.
    assert KB.claim(question) == 2
    lookup = KB.lookup(question)
    assert lookup.topic == "symptoms" and lookup.cards == ()


def test_the_best_time_to_sow_is_the_window_not_now() -> None:
    assert KB.lookup("best time to sow sunflower in Kherson").mode == "answer"
    for question in ("is it too cold to sow sunflower", "чи не холодно сіяти сою"):
        assert KB.lookup(question).mode == "sow_now", question


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("кукурудза", 1), ("а ячмінь?", 1), ("тля", 1), ("що там з цинком", 1),
        ("про соняшник розкажи", 1), ("амброзія", 1),
        ("привіт", 0), ("шакалака бумбум", 0), ("запиши полив", 0), ("яка погода", 0),
    ],
)  # fmt: skip
def test_an_agronomy_subject_is_named(text: str, named: int) -> None:
    """A crop, a pest, weed or disease, or a nutrient (issue 25 point 3): a message no
    rule understood that names one goes to the advisor."""
    assert KB.names_subject(text) == named
