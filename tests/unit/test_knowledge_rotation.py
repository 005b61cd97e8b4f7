"""Issue 25 point 6: rotation cards asked both ways, top-dressing with its dose and
timing, and one pest, weed or disease answered alone with the others named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.knowledge import Answer, Composer
from pipeline.knowledge.loader import load_knowledge
from pipeline.types import Language
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

RULES = rulebook()
KB = RULES.knowledge
KNOWLEDGE = Path(__file__).resolve().parents[2] / "pipeline" / "rules" / "knowledge"


@pytest.fixture(scope="module")
def composer() -> Composer:
    return Composer(KB, shared_catalog(), RULES.vocabulary)


def ask(composer: Composer, question: str, lang: Language = "uk") -> Answer:
    return composer.compose(KB.lookup(question), lang=lang)


def test_every_crop_with_cards_has_a_sourced_rotation_card() -> None:
    for crop in KB.data.crops:
        card = KB.cards.get(f"{crop.removeprefix('crop:')}.rotation")
        assert card is not None and card.rotation is not None, crop
        assert card.sources and (card.value("return_years") or card.value("repeat_years"))
        assert card.rotation.good and card.rotation.bad, crop


@pytest.mark.parametrize(
    ("question", "interval"),
    [
        ("коли можна повернути соняшник на те саме поле?", "7–8 років"),
        ("через скільки років можна сіяти ріпак на тому ж полі", "4–5 років"),
        ("соя по сої на другий рік можна?", "3–4 роки"),
    ],
)
def test_a_rotation_answer_names_the_return_interval(
    composer: Composer, question: str, interval: str
) -> None:
    answer = ask(composer, question)
    assert not answer.unsure
    assert f"Повернення на те саме поле: не раніше ніж через {interval}" in answer.text
    assert "Добрі попередники:" in answer.text and "Погані попередники:" in answer.text


def test_what_after_a_crop_answers_from_the_predecessors_card(composer: Composer) -> None:
    answer = ask(composer, "що краще посіяти після кукурудзи?")
    assert answer.cards == ("maize.rotation",)
    lines = answer.text.splitlines()
    assert lines[0] == "Кукурудза як попередник"
    assert lines[1].startswith("• Після цієї культури добре йдуть:") and "соя" in lines[1]
    english = ask(composer, "what to plant after soybeans", "en")
    assert english.text.startswith("Soybean as a predecessor") and "winter wheat" in english.text


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("після соняшнику пшеницю можна?", "«Соняшник» для культури «Озима пшениця» — поганий"),
        (
            "чи можна сіяти ріпак після озимого ячменю",
            "«Озимий ячмінь» для культури «Озимий ріпак» — добрий",
        ),
        ("пшеницю по пшениці можна сіяти", "Озима пшениця після себе — небажано"),
    ],
)
def test_a_pair_gets_a_verdict_and_no_sowing_dates(
    composer: Composer, question: str, verdict: str
) -> None:
    answer = ask(composer, question)
    assert verdict in answer.text.splitlines()[0]
    assert all(card.endswith(".rotation") for card in answer.cards)
    assert not re.search(r"(вересня|жовтня|квітня|травня)\s*[–-]", answer.text)


def test_cards_that_disagree_on_a_pair_are_refused(tmp_path: Path) -> None:
    """Winter wheat calls peas a good predecessor; peas may not then avoid wheat."""
    for path in KNOWLEDGE.rglob("*.toml"):
        target = tmp_path / path.relative_to(KNOWLEDGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    peas = tmp_path / "cards" / "peas.toml"
    text = peas.read_text(encoding="utf-8")
    peas.write_text(
        text.replace('avoid = ["crop:peas",', 'avoid = ["crop:winter-wheat", "crop:peas",'),
        encoding="utf-8",
    )
    units = RULES.operations.units.known
    crops = list(KB.crop_names)
    with pytest.raises(ValueError, match="good predecessor, yet avoids"):
        load_knowledge(tmp_path, units=units, crop_ids=crops)


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("підживлення пшениці азотом навесні скільки і коли", "uk"),
        ("підживлення кукурудзи азотом", "uk"),
        ("top dressing winter rapeseed nitrogen", "en"),
    ],
)
def test_a_top_dressing_answer_gives_a_dose_with_its_unit_and_the_timing(
    composer: Composer, question: str, lang: Language
) -> None:
    text = ask(composer, question, lang).text
    unit = "кг д. р./га" if lang == "uk" else "kg a.i./ha"
    dose = re.search(r"(Доза|Dose): \d+–\d+ " + re.escape(unit), text)
    assert dose is not None, text
    when = "коли діяти:" if lang == "uk" else "when to act:"
    after = text[dose.end() :].splitlines()[1]
    assert when in after and re.search(r"BBCH|весн|spring|лист|leaves", after)


@pytest.mark.parametrize(
    ("question", "named", "others"),
    [
        (
            "септоріоз на пшениці що робити",
            "Септоріоз листя",
            ["Борошниста роса", "Фузаріоз колоса"],
        ),
        ("фитофтора на картошке", "Фітофтороз", ["Альтернаріоз"]),
        ("вовчок на соняшнику", "Вовчок", ["Дводольні", "Злакові"]),
    ],
)
def test_one_named_pest_weed_or_disease_is_answered_alone(
    composer: Composer, question: str, named: str, others: list[str]
) -> None:
    body, _, rest = ask(composer, question).text.partition("Також буває:")
    assert named in body
    for other in others:
        assert other not in body, other
        assert other in rest.splitlines()[0]


def test_a_pair_keeps_another_topic_named_outright_but_not_the_sowing_date() -> None:
    both = KB.lookup("пшениця після пшениці хвороби")
    assert {card.id for card in both.cards} == {"winter-wheat.rotation", "winter-wheat.diseases"}
    sowing = KB.lookup("чи можна сіяти пшеницю після соняшнику")
    assert [card.id for card in sowing.cards] == ["winter-wheat.rotation"]


def test_every_items_button_fits_telegrams_callback_data_and_comes_back() -> None:
    from bot.keyboards.pipeline import ItemCD, callback_data
    from pipeline.actions import ItemAction

    for card in KB.data.cards:
        for n, _ in enumerate(card.items if card.crop else ()):
            packed = callback_data(ItemAction(card.id, n)).pack()
            assert len(packed.encode()) <= 64, packed
            assert ItemCD.unpack(packed).to_action() == ItemAction(card.id, n)
