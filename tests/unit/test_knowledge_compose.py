"""The reply composed from a card: zone values, the farm's own numbers, levels,
sources, and honesty when the base does not know."""

from __future__ import annotations

import re
from datetime import date

import pytest

from pipeline.knowledge import Answer, Composer, FarmFacts
from pipeline.knowledge.compose import short_title
from pipeline.types import Language
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

RULES = rulebook()
KB = RULES.knowledge


@pytest.fixture(scope="module")
def composer() -> Composer:
    return Composer(KB, shared_catalog(), RULES.vocabulary)


def ask(
    composer: Composer,
    question: str,
    *,
    lang: Language = "uk",
    level: str = "intermediate",
    facts: FarmFacts | None = None,
    **context: object,
) -> Answer:
    lookup = KB.lookup(question, **context)  # type: ignore[arg-type]
    return composer.compose(lookup, lang=lang, level=level, farm_facts=facts)  # type: ignore[arg-type]


def test_known_zone_gives_its_value_with_a_decimal_comma(composer: Composer) -> None:
    answer = ask(composer, "норма висіву озимої пшениці", farm_region="Вінницька")
    assert "4,5–5 млн насінин/га" in answer.text
    assert "Лісостеп" in answer.text and "Полісся" not in answer.text
    assert answer.asks is None and not answer.unsure


def test_unknown_zone_lists_every_zone_and_asks_for_the_region_once(composer: Composer) -> None:
    answer = ask(composer, "what is the seeding rate for sunflower?", lang="en")
    assert "Polissia: 55–65 thousand seeds/ha" in answer.text
    assert "Steppe: 40–50 thousand seeds/ha" in answer.text
    assert answer.text.count("Which oblast") == 1 and answer.asks == "region"


def test_english_keeps_the_decimal_point(composer: Composer) -> None:
    answer = ask(composer, "winter wheat seeding rate in the steppe", lang="en")
    assert "4–5 million seeds/ha" in answer.text
    assert ask(composer, "rapeseed seeding rate", lang="en").text.count("0.5–0.8") == 1


def test_one_short_source_line(composer: Composer) -> None:
    answer = ask(composer, "вологість соняшнику для зберігання")
    sources = [line for line in answer.text.splitlines() if line.startswith("Джерело:")]
    assert len(sources) == 1 and "ДСТУ 7011:2009" in sources[0] and "2009" in sources[0]


def test_sow_now_compares_the_farms_soil_and_date(composer: Composer) -> None:
    december = ask(
        composer,
        "чи можна сьогодні сіяти кукурудзу?",
        facts=FarmFacts(today=date(2025, 12, 10), soil_temp_c=4.0),
        farm_region="Полтавська",
    )
    assert december.text.splitlines()[1].startswith("Ні")
    assert "4 °C" in december.text and "8 °C" in december.text
    assert "25 квітня – 10 травня" in december.text
    # December is out of season: next year's window, not «пізня сівба знижує врожай».
    catalog = shared_catalog()
    assert catalog.text("uk", "knowledge.sow_now.no_next") in december.text
    assert "знижує врожай" not in december.text
    june = ask(
        composer,
        "чи можна сьогодні сіяти кукурудзу?",
        facts=FarmFacts(today=date(2025, 6, 1), soil_temp_c=18.0),
        farm_region="Полтавська",
    )
    # Three weeks late is late sowing, with its warning.
    assert catalog.text("uk", "knowledge.sow_now.no_late") in june.text
    spring = ask(
        composer,
        "чи можна сьогодні сіяти кукурудзу?",
        facts=FarmFacts(today=date(2025, 4, 30), soil_temp_c=11.0),
        farm_region="Полтавська",
    )
    assert "Так, можна сіяти." in spring.text and "11 °C" in spring.text
    cold = ask(
        composer,
        "чи можна вже сіяти кукурудзу",
        facts=FarmFacts(today=date(2025, 4, 30), soil_temp_c=6.0),
        farm_region="Полтавська",
    )
    assert "ґрунт холодний" in cold.text and "6 °C" in cold.text


def test_winter_wheat_in_spring_is_not_judged_by_soil_warmth(composer: Composer) -> None:
    answer = ask(
        composer,
        "чи можна сьогодні сіяти озиму пшеницю?",
        facts=FarmFacts(today=date(2025, 4, 30), soil_temp_c=12.0),
        farm_region="Київська",
    )
    assert answer.text.splitlines()[1].startswith("Ні, ще зарано")
    assert "15 вересня – 5 жовтня" in answer.text
    assert "12 °C" not in answer.text


def test_seed_for_a_named_field_is_scaled_by_its_area(composer: Composer) -> None:
    answer = ask(
        composer,
        "скільки насіння на поле 3?",
        facts=FarmFacts(fields={"Поле 3": 12.0, "Північне": 40.0}),
        previous_crop="crop:sunflower",
        farm_region="Херсонська",
    )
    assert "480–600 тис. насінин" in answer.text and "12 га" in answer.text
    by_name = ask(
        composer,
        "скільки насіння на Північне?",
        facts=FarmFacts(fields={"Поле 3": 12.0, "Північне": 40.0}),
        previous_crop="crop:maize",
        farm_region="Черкаська",
    )
    assert "2,4–3 млн насінин" in by_name.text


def test_an_area_in_the_question_is_scaled_and_an_unknown_field_is_said(
    composer: Composer,
) -> None:
    answer = ask(composer, "скільки насіння соняшнику треба на 25 га", farm_region="Одеська")
    assert "1–1,25 млн насінин" in answer.text
    unknown = ask(
        composer,
        "скільки насіння на поле 9?",
        facts=FarmFacts(fields={"Поле 3": 12.0}),
        previous_crop="crop:sunflower",
    )
    assert "Поля «9» я не знайшов" in unknown.text


def test_a_novice_gets_the_why_an_expert_only_numbers(composer: Composer) -> None:
    novice = ask(composer, "коли сіяти сою", level="novice", farm_region="Київська")
    expert = ask(composer, "коли сіяти сою", level="expert", farm_region="Київська")
    assert "Чому так:" in novice.text and "Чому так:" not in expert.text
    assert "1 травня – 15 травня" in expert.text
    assert len(expert.text) < len(novice.text)


def test_a_named_pest_shows_only_its_item(composer: Composer) -> None:
    answer = ask(composer, "шкідлива черепашка на пшениці поріг")
    assert "Клоп шкідлива черепашка" in answer.text and "2–4 шт./м²" in answer.text
    # The others are only named on the closing line, to be asked next.
    body, _, others = answer.text.partition("Також буває:")
    assert "П'явиці" not in body and "П'явиці" in others.splitlines()[0]
    assert "лямбда-цигалотрин" in answer.text


def test_general_card_gives_the_asked_crops_line_only(composer: Composer) -> None:
    answer = ask(composer, "чи витримає соя заморозок")
    assert "−3…−2,5 °C" in answer.text
    assert "Кукурудза" not in answer.text
    none = ask(composer, "заморозки на просі")
    assert "Окремих даних для культури «Просо»" in none.text
    assert "−3…−2,5" not in none.text


@pytest.mark.parametrize(
    "question",
    ["коли сіяти просо?", "норма висіву сорго", "після чого сіяти просо", "яка погода завтра"],
)
def test_honest_when_unsure_no_numbers_and_an_offer(composer: Composer, question: str) -> None:
    answer = ask(composer, question, farm_crops=["crop:sunflower"])
    assert answer.unsure
    assert "агрономові" in answer.text
    assert not re.search(r"\d+\s*[–-]\s*\d+\s*(тис|млн|кг)", answer.text)
    assert not re.search(r"(квітня|травня|вересня)\s*[–-]", answer.text)


def test_asking_for_the_crop_names_the_farms_crops(composer: Composer) -> None:
    answer = ask(composer, "яка норма висіву?", farm_crops=["crop:sunflower", "crop:maize"])
    assert answer.asks == "crop" and "соняшник" in answer.text and "кукурудза" in answer.text
    unlisted = ask(composer, "коли сіяти фізаліс?")
    assert unlisted.asks == "crop" and "агроном" in unlisted.text
    listed = ask(composer, "коли сіяти кавуни?")
    assert listed.unsure and "«Кавуни»" in listed.text


@pytest.mark.parametrize("lang", ["uk", "en"])
def test_a_card_answer_per_level_terms_explained_or_numbers_alone(
    composer: Composer, lang: Language
) -> None:
    """Issue 11 point 3: a novice reads what the card's terms mean (the threshold,
    the active substances, the BBCH scale), once each; an intermediate the reference
    answer; an expert the numbers and terms without the notes that explain them."""
    question = {"uk": "поріг шкодочинності попелиці на пшениці", "en": "aphid threshold wheat"}
    novice, middle, expert = (
        ask(composer, question[lang], lang=lang, level=level).text
        for level in ("novice", "intermediate", "expert")
    )
    assert len({novice, middle, expert}) == 3
    catalog = composer.catalog
    terms = [
        catalog.text(lang, f"level.novice.why.knowledge.{term}")
        for term in ("threshold", "actives")
    ]
    assert all(novice.count(term) == 1 for term in terms)
    assert not any(term in middle or term in expert for term in terms)
    assert all("5–10" in text for text in (novice, middle, expert))
    # The item's note explains (the virus aphids carry): not for an expert.
    (card,) = KB.lookup(question[lang]).cards
    notes = [item.note.get(lang) for item in card.items if item.note is not None]
    shown = [note for note in notes if note in middle]
    assert shown and all(note in novice and note not in expert for note in shown)
    assert len(expert) < len(middle) < len(novice)


def test_a_novice_reads_the_bbch_scale_and_the_zone_explained(composer: Composer) -> None:
    disease = ask(composer, "чим обробити пшеницю від септоріозу", level="novice")
    assert composer.catalog.text("uk", "level.novice.why.knowledge.bbch") in disease.text
    rate = ask(composer, "норма висіву озимої пшениці", level="novice", farm_region="Вінницька")
    for term in ("zone", "rate"):
        assert composer.catalog.text("uk", f"level.novice.why.knowledge.{term}") in rate.text
    expert = ask(composer, "норма висіву озимої пшениці", level="expert", farm_region="Вінницька")
    assert "💡" not in expert.text and "4,5–5 млн насінин/га" in expert.text


def test_every_source_line_is_short_and_its_title_cut_at_a_word() -> None:
    """Issue 30 point 6: about 80 characters at most, in both languages."""
    kb = rulebook().knowledge
    composer = Composer(kb, shared_catalog(), rulebook().vocabulary)
    for card in kb.data.cards:
        for lang in ("uk", "en"):
            [line] = composer.source_lines((card,), lang)
            assert len(line) <= 80, line
    assert (
        short_title("«Рослинництво. Технології вирощування культур»", 30)
        == "«Рослинництво. Технології…»"
    )
    assert short_title("A short one", 30) == "A short one"
