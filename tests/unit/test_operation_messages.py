"""Whole messages (issue 12): several operations in one, status from meaning, amounts
kept apart, canonical products, and messages that ask or negate instead of record.

``TODAY`` is a Thursday; every case below is one :meth:`OperationParser.parse_all`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import pytest

from pipeline.farm.dictionary import Dictionary, DictionaryEntry
from pipeline.farm.journal.parsing import OperationParser, ParsedMessage, ParsedOperation
from tests.shared import rulebook

TODAY = date(2026, 5, 14)  # Thursday
RULES = rulebook()
PARSER = OperationParser(RULES.operations)


def _field(name: str, *synonyms: str) -> DictionaryEntry:
    return DictionaryEntry("field", f"field:{name.lower().replace(' ', '-')}", name, synonyms)


FIELDS = (
    _field("Поле 3", "field 3"),
    _field("Поле 5", "field 5"),
    _field("Поле 7", "field 7"),
    _field("Поле 12", "field 12"),
    _field("Курган"),
    _field("Дальнє"),
    _field("Левада"),
    _field("Північне", "north", "north field"),
    _field("Південне", "south", "south field"),
    _field("Ставок"),
)


@pytest.fixture(scope="module")
def farm() -> Dictionary:
    return RULES.vocabulary.dictionary(FIELDS)


@dataclass(frozen=True)
class Op:
    """What one operation must be; ``None`` where nothing is said."""

    op: str
    field: str | None = None
    crop: str | None = None
    product: str | None = None
    rate: tuple[float, str] | None = None
    amount: tuple[float, str] | None = None
    area: float | None = None
    yield_t_ha: float | None = None
    when: int | date = 0
    status: str = "done"

    @property
    def day(self) -> date:
        return self.when if isinstance(self.when, date) else TODAY + timedelta(days=self.when)


def _flat(parsed: ParsedMessage) -> list[Op]:
    """One :class:`Op` per field, as the bench counts them."""
    out: list[Op] = []
    for op in parsed.operations:
        for name in op.field_names or (None,):
            out.append(_op(op, name))
    return out


def _op(op: ParsedOperation, field: str | None) -> Op:
    return Op(
        op.op_type,
        field,
        op.crop_id.partition(":")[2] if op.crop_id else None,
        op.product,
        (op.rate, op.rate_unit) if op.rate is not None and op.rate_unit else None,
        (op.amount, op.amount_unit) if op.amount is not None and op.amount_unit else None,
        op.area_ha,
        op.yield_t_ha,
        op.op_date,
        op.status,
    )


def _normal(op: Op) -> Op:
    return Op(op.op, op.field, op.crop, op.product, op.rate, op.amount, op.area,
              op.yield_t_ha, op.day, op.status)  # fmt: skip


SEVERAL: list[tuple[str, list[Op]]] = [
    ("Вчора на полі 3 дискували, а сьогодні посіяли горох 250 кг/га",
     [Op("tillage", "Поле 3", when=-1), Op("sowing", "Поле 3", "peas", rate=(250, "kg/ha"))]),
    ("посіяли соняшник на Кургані і кукурудзу на Дальньому",
     [Op("sowing", "Курган", "sunflower"), Op("sowing", "Дальнє", "maize")]),
    ("поле 5 прикатали, поле 12 заборонували", [Op("rolling", "Поле 5"), Op("tillage", "Поле 12")]),
    ("Сьогодні обприскали Поле 3 Абакусом 1 л/га, а Поле 5 — Децисом 0,2 л/га",
     [Op("spraying", "Поле 3", product="Абакус", rate=(1, "l/ha")),
      Op("spraying", "Поле 5", product="Децис", rate=(0.2, "l/ha"))]),
    ("вчора полили Курган 20 мм, сьогодні Дальнє 25 мм",
     [Op("irrigation", "Курган", rate=(20, "mm"), when=-1),
      Op("irrigation", "Дальнє", rate=(25, "mm"))]),
    ("культивація і посів соняшнику на полі 7",
     [Op("tillage", "Поле 7"), Op("sowing", "Поле 7", "sunflower")]),
    ("полили поле 3 і поле 5 вчора по 20 мм",
     [Op("irrigation", "Поле 3", rate=(20, "mm"), when=-1),
      Op("irrigation", "Поле 5", rate=(20, "mm"), when=-1)]),
    ("зібрали пшеницю на Північному 5,5 т/га і ячмінь на Південному 4,8 т/га",
     [Op("harvest", "Північне", "wheat", yield_t_ha=5.5),
      Op("harvest", "Південне", "barley", yield_t_ha=4.8)]),
    ("полили Курган, а Дальнє завтра",
     [Op("irrigation", "Курган"), Op("irrigation", "Дальнє", when=1, status="planned")]),
    ("Yesterday we disked field 12 and today sowed soybeans there at 90 kg/ha",
     [Op("tillage", "Поле 12", when=-1), Op("sowing", "Поле 12", "soy", rate=(90, "kg/ha"))]),
    ("вчера посеяли подсолнечник на Кургане, а сегодня кукурузу на Дальнем",
     [Op("sowing", "Курган", "sunflower", when=-1), Op("sowing", "Дальнє", "maize")]),
    ("field 3: disked, field 5: rolled", [Op("tillage", "Поле 3"), Op("rolling", "Поле 5")]),
    ("зібрали 6 т/га пшениці на полі 3 і 5,2 на полі 5",
     [Op("harvest", "Поле 3", "wheat", yield_t_ha=6),
      Op("harvest", "Поле 5", "wheat", yield_t_ha=5.2)]),
    ("Поле 3 посіяли, а поле 5 ще ні", [Op("sowing", "Поле 3")]),
    ("Полили поле 3 вчора. Чи треба ще раз?", [Op("irrigation", "Поле 3", when=-1)]),
    ("Культивацію на Леваді зробили, а посів перенесли на понеділок",
     [Op("tillage", "Левада"), Op("sowing", "Левада", when=4, status="planned")]),
    ("Внесли 100 кг аммиачной селитры на гектар на поле 3 и 150 на поле 5",
     [Op("fertilising", "Поле 3", product="аміачна селітра", rate=(100, "kg/ha")),
      Op("fertilising", "Поле 5", product="аміачна селітра", rate=(150, "kg/ha"))]),
    ("Посіяли соняшник на Кургані, гібрид НК Неома, 65 тисяч на гектар",
     [Op("sowing", "Курган", "sunflower", "НК Неома", rate=(65, "k/ha"))]),
    ("заплануй обприскування поле 3 і полив поле 5 на завтра",
     [Op("spraying", "Поле 3", when=1, status="planned"),
      Op("irrigation", "Поле 5", when=1, status="planned")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), SEVERAL, ids=[text for text, _ in SEVERAL])
def test_several_operations(farm: Dictionary, text: str, expected: list[Op]) -> None:
    parsed = PARSER.parse_all(text, farm, TODAY)
    assert parsed.mood == "record"
    assert _flat(parsed) == [_normal(op) for op in expected]


@pytest.mark.parametrize(
    ("text", "mood"),
    [
        ("дощ, тому обприскування відміняється", "negated"),
        ("не встигли обприскати поле 3, дощ", "negated"),
        ("Сусід вже посіяв кукурузу, а ми ще ні", "negated"),
        ("комбайн зламався, збирання стоїть", "negated"),
        ("обприскування поля 5 не буде, дощ", "negated"),
        ("we didn't spray field 3 yesterday, too windy", "negated"),
        ("посев на Кургане отменяется", "negated"),
        ("полив відклали через дощ", "negated"),
        ("Вчора хотіли обприскати поле 5, але пішов дощ", "negated"),
        ("did you record the spraying on field 3?", "question"),
        ("чи полили поле 3?", "question"),
        ("Сусід питає, чим ми обприскували поле 3", "question"),
        ("когда убирали ячмень на поле 7?", "question"),
        ("добрий день, підкажіть норму внесення КАС на пшеницю", "question"),
        ("Дякую, записав обприскування", "none"),
        ("купили 20 т селітри", "negated"),
        ("Абакус 1,5 л/га", "none"),
        ("обприскування", "none"),
    ],
)
def test_no_record(farm: Dictionary, text: str, mood: str) -> None:
    parsed = PARSER.parse_all(text, farm, TODAY)
    assert parsed.operations == ()
    assert not parsed.record
    assert parsed.mood == mood
    assert PARSER.parse(text, farm, TODAY) is None


@pytest.mark.parametrize(
    ("text", "status", "when"),
    [
        ("заплануй обприскування поле 3 на 10.12", "planned", date(2026, 12, 10)),
        ("треба обприскати поле 5", "planned", TODAY),
        ("завтра будемо сіяти кукурудзу на Дальньому", "planned", TODAY + timedelta(days=1)),
        ("плануємо збирати пшеницю з 1 липня", "planned", date(2026, 7, 1)),
        ("запиши план: 25.05 посів сої на Дальньому", "planned", date(2026, 5, 25)),
        ("запиши: 12.05 планували підживлення поле 3", "planned", date(2026, 5, 12)),
        ("We'll sow sunflower on field 5 on Monday", "planned", date(2026, 5, 18)),
        ("сьогодні косимо люцерну на Леваді", "done", TODAY),
        ("Сьогодні почали збирати ріпак на Кургані", "done", TODAY),
        ("посіяли сою 10.12", "done", date(2025, 12, 10)),
    ],
)
def test_status_from_meaning(farm: Dictionary, text: str, status: str, when: date) -> None:
    parsed = PARSER.parse(text, farm, TODAY)
    assert parsed is not None, text
    assert (parsed.status, parsed.op_date) == (status, when)


def test_amounts_are_kept_apart(farm: Dictionary) -> None:
    parsed = PARSER.parse("зібрали 320 т кукурудзи з поля 12, 9,8 т/га, 33 га", farm, TODAY)
    assert parsed is not None
    assert (parsed.amount, parsed.amount_unit, parsed.yield_t_ha) == (320, "t", 9.8)
    assert (parsed.area_ha, parsed.rate) == (33, None)
    sprayed = PARSER.parse("Раундап 3 л/га по стерні на Леваді, обробили 40 га", farm, TODAY)
    assert sprayed is not None
    assert (sprayed.rate, sprayed.rate_unit, sprayed.area_ha) == (3, "l/ha", 40)
    assert (sprayed.product, sprayed.product_type) == ("Раундап", "herbicide")


@pytest.mark.parametrize(
    ("text", "slot", "value", "unit"),
    [
        ("посіяли пшеницю 150 кило на гектар на полі 3", "rate", 150, "kg/ha"),
        ("внесли 3 ц/га аміачки на Леваді", "rate", 0.3, "t/ha"),
        ("внесли півтонни карбаміду на Курган", "amount", 0.5, "t"),
        ("зібрали 2,5 тисячі тонн пшениці з Кургану", "amount", 2500, "t"),
        ("посіяли кукурудзу на полі 5, норма 70 тисяч", "rate", 70, "k/ha"),
        ("полили 500 кубів на Ставку", "amount", 500, "m3"),
        ("обприскали Курган Гранстаром 20 г", "rate", 0.02, "kg/ha"),
        ("Вчора Абакус 1,5 на пшениці, Курган", "rate", 1.5, "l/ha"),
        ("урожайність пшениці на полі 3 склала 62 ц, зібрали", "yield", 6.2, "t/ha"),
        ("applied two tonnes of lime per hectare on field 5", "rate", 2, "t/ha"),
        ("зібрали по 40 центнерів пшениці на полі 3", "yield", 4, "t/ha"),
        ("внесли селітру по 100 кг на Кургані", "rate", 100, "kg/ha"),
    ],
)
def test_quantities(farm: Dictionary, text: str, slot: str, value: float, unit: str) -> None:
    parsed = PARSER.parse(text, farm, TODAY)
    assert parsed is not None, text
    got = {
        "rate": (parsed.rate, parsed.rate_unit),
        "amount": (parsed.amount, parsed.amount_unit),
        "yield": (parsed.yield_t_ha, "t/ha"),
    }[slot]
    assert got == (pytest.approx(value), unit)


@pytest.mark.parametrize(
    "text",
    [
        "внесли аміачну селітру 100 кг/га на Курган",
        "внесли аміачної селітри 100 кг/га на Курган",
        "підживили Курган аміачною селітрою 100 кг/га",
        "applied ammonium nitrate 100 kg/ha on Курган",
        "внесли селітру 100 кг/га на Курган",
        "удобрили Курган аммиачной селитрой 100 кг/га",
    ],
)
def test_one_product_whatever_its_case(farm: Dictionary, text: str) -> None:
    parsed = PARSER.parse(text, farm, TODAY)
    assert parsed is not None, text
    assert (parsed.op_type, parsed.product) == ("fertilising", "аміачна селітра")


def test_a_name_is_not_a_product(farm: Dictionary) -> None:
    parsed = PARSER.parse("полили Вербове 20 мм", farm, TODAY)
    assert parsed is not None
    assert parsed.product is None
    assert parsed.unknown_terms == (("field", "вербове"),)
    unknown = PARSER.parse("обприскали поле 3 Ксерксом 1 л/га", farm, TODAY)
    assert unknown is not None and unknown.product == "Ксерксом"  # dosed: a brand


def test_next_week_is_a_date_not_a_field(farm: Dictionary) -> None:
    parsed = PARSER.parse("на наступному тижні обприскаємо Дальнє", farm, TODAY)
    assert parsed is not None
    assert (parsed.field_phrase, parsed.unknown_terms) == ("Дальнє", ())
    assert (parsed.op_date, parsed.status) == (date(2026, 5, 18), "planned")
    bare = PARSER.parse("на наступному тижні обприскування", farm, TODAY)
    assert bare is not None and bare.unknown_terms == ()


def test_unknown_fields_are_reported(farm: Dictionary) -> None:
    parsed = PARSER.parse_all("посіяли соняшник на Горбі і кукурудзу на полі 44", farm, TODAY)
    terms = [term for op in parsed.operations for term in op.unknown_terms]
    assert terms == [("field", "горбі"), ("field", "поле 44")]
    assert [op.field_id for op in parsed.operations] == [None, None]


def test_a_general_crop_name_means_the_farms_kind_of_it() -> None:
    own = DictionaryEntry("crop", "crop:winter-wheat", "Озима пшениця", ())
    farm = RULES.vocabulary.dictionary([*FIELDS, own])
    parsed = PARSER.parse("посіяли пшеницю на полі 3", farm, TODAY)
    assert parsed is not None and parsed.crop_id == "crop:winter-wheat"
    both = RULES.vocabulary.dictionary(
        [*FIELDS, own, DictionaryEntry("crop", "crop:wheat", "Пшениця", ())]
    )
    parsed = PARSER.parse("посіяли пшеницю на полі 3", both, TODAY)
    assert parsed is not None and parsed.crop_id == "crop:wheat"


def test_the_noun_of_two_crop_words_is_the_crop(farm: Dictionary) -> None:
    # «озимий» alone is no crop (it would be winter wheat's «озимина»): the noun
    # decides, and the shared crop list knows winter rapeseed as its own crop.
    parsed = PARSER.parse("Сьогодні посіяли озимий ріпак на Кургані", farm, TODAY)
    assert parsed is not None and parsed.crop_id == "crop:winter-rapeseed"


@pytest.mark.parametrize(
    "text",
    [
        "Внесли 100 кг/га амофосу під оранку на Кургані",
        "обробили насіння пшениці Ламардором 0,2 л/т перед посівом",
        "Позавчера прикатали Курган после сева",
    ],
)
def test_an_operation_named_as_a_time_is_no_operation(farm: Dictionary, text: str) -> None:
    assert len(PARSER.parse_all(text, farm, TODAY).operations) == 1
