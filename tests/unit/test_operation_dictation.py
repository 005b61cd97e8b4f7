"""Operations written the way people dictate them (issue 25, the journal).

Field names said as ordinals alone, rates and doses said in words or as a bare number
after the product, brands the catalogue lists in either script, days said as ordinals,
and the messages that record nothing: a price, a plan that was not carried out,
advice. The farm and ``TODAY`` (Thursday 14 May 2026) are in operation_world.py.
"""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.farm.dictionary import Dictionary, DictionaryEntry
from pipeline.farm.journal.parsing import OperationParser, ParsedOperation
from pipeline.text import fold, tokenize
from tests.unit import operation_world as world
from tests.unit.operation_world import MON, NEXT_MON, RULES, TODAY, TUE

farm = world.farm
PARSER = OperationParser(RULES.operations)


def _only(text: str, dictionary: Dictionary) -> ParsedOperation:
    parsed = PARSER.parse_all(text, dictionary, TODAY)
    assert len(parsed.operations) == 1, (text, parsed)
    return parsed.operations[0]


# =========================================================================== ordinal fields


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("на третьому посіяли сою", "Поле 3"),
        ("вчера на седьмом опрыскали подсолнух", "Поле 7"),
        ("на сёмом поле культивация", "Поле 7"),
        ("на дев'ятім скосили люцерну", "Поле 9"),
        ("треба на сьомому підживити ячмінь", "Поле 7"),
        ("поле сьоме продискували", "Поле 7"),
        ("на 9-му посіяли сою", "Поле 9"),
    ],
)
def test_a_field_named_by_an_ordinal_alone(farm: Dictionary, text: str, field: str) -> None:
    assert _only(text, farm).field_names == (field,)


def test_ordinals_listed_name_each_field(farm: Dictionary) -> None:
    for text in ("на третьому і дев'ятому прикатали", "на третьому, сьомому і дев'ятому прикатали"):
        names = {n for op in PARSER.parse_all(text, farm, TODAY).operations for n in op.field_names}
        expected = {"Поле 3", "Поле 9"} | ({"Поле 7"} if "сьомому" in text else set())
        assert names == expected, text


def test_a_compound_ordinal_is_one_number() -> None:
    entry = DictionaryEntry("field", "field:pole-21", "Поле 21", ("field 21",))
    dictionary = RULES.vocabulary.dictionary([entry])
    for text in (
        "першого травня будемо сіяти сою на двадцять першому",
        "двадцять перше поле полили",
    ):
        assert _only(text, dictionary).field_names == ("Поле 21",), text


@pytest.mark.parametrize(
    "text",
    [
        "на п'ятому посіяли сою",  # the farm has no field 5: nothing is invented
        "на другому тижні посіяли сою",  # a week, not a field
    ],
)
def test_an_ordinal_that_names_no_field_of_the_farm(farm: Dictionary, text: str) -> None:
    assert _only(text, farm).field_names == ()


# =========================================================================== rates in words


@pytest.mark.parametrize(
    ("text", "rate", "unit"),
    [
        ("обприскали ріпак на Гірці Децисом нуль двадцять п'ять", 0.25, "l/ha"),
        ("Моддус нуль три на пшениці на третьому", 0.3, "l/ha"),
        ("Карате нуль цілих п'ятнадцять сотих літра на гектар на Гірці", 0.15, "l/ha"),
        ("на Гірці обприскали соняшник гербіцидом два літри на гектар", 2.0, "l/ha"),
        ("на Гірці внесли карбамід, сто кілограм на гектар", 100.0, "kg/ha"),
        ("Гардо Голд 4 на кукурудзі на Гірці", 4.0, "l/ha"),
        ("сьогодні на Гірці Нурел Д півлітра по соняшнику", 0.5, "l/ha"),
        ("на Гірці Гліфоган три літри", 3.0, "l/ha"),
        ("посіяли овес на Гірці, двісті кіло", 200.0, "kg/ha"),
        ("полили Гірку тридцятьма міліметрами", 30.0, "mm"),
        ("обробили насіння Максимом, літр на тонну", 1.0, "l/t"),
    ],
)
def test_a_rate_said_in_words(farm: Dictionary, text: str, rate: float, unit: str) -> None:
    op = _only(text, farm)
    assert (op.rate, op.rate_unit) == (pytest.approx(rate), unit), text


def test_a_half_after_a_grade_is_its_own_number(farm: Dictionary) -> None:
    op = _only("обприскали пшеницю на Гірці Тебу шістдесят, пів літра на гектар", farm)
    assert (op.product, op.rate) == ("Тебу 60", 0.5)


def test_a_fertiliser_without_per_hectare_stays_a_total(farm: Dictionary) -> None:
    op = _only("внесли 200 кг аміачної селітри на Гірку", farm)
    assert (op.amount, op.amount_unit, op.rate) == (200.0, "kg", None)


# =========================================================================== brands


@pytest.mark.parametrize(
    ("text", "product", "op_type"),
    [
        ("на Гірці обприскали кукурудзу Примекстрою", "Примекстра TZ Голд", "spraying"),
        ("Elumis 2 l/ha на кукурудзі на Гірці", "Елюміс", "spraying"),
        ("вчера на Гирке опрыскали кукурузу Элюмисом", "Елюміс", "spraying"),
        ("Калісто 0,25 на кукурудзі на Гірці", "Калісто", "spraying"),
        ("на Гірці Аканто Плюс нуль шість по пшениці", "Аканто Плюс", "spraying"),
        ("YaraMila Complex двісті кіло на гектар на Гірці", "YaraMila Complex", "fertilising"),
    ],
)
def test_a_brand_in_either_script(farm: Dictionary, text: str, product: str, op_type: str) -> None:
    op = _only(text, farm)
    assert (op.product, op.op_type, op.field_names) == (product, op_type, ("Гірка",)), text


# =========================================================================== days


@pytest.mark.parametrize(
    ("text", "when", "field"),
    [
        ("п'ятого травня провели боронування на Гірці", date(2026, 5, 5), "Гірка"),
        ("вісімнадцятого числа обприскали сою на Гірці", date(2026, 4, 18), "Гірка"),
        ("двадцять третього посіяли горох на Гірці", date(2026, 4, 23), "Гірка"),
        ("третього посіяли горох на Гірці", date(2026, 5, 3), "Гірка"),
        ("двадцятого будемо сіяти гречку на Гірці", date(2026, 5, 20), "Гірка"),
        ("у вівторок на сьомому обприскали картоплю", TUE, "Поле 7"),
        ("в понеділок на дев'ятому полили двадцятьма п'ятьма міліметрами", MON, "Поле 9"),
        ("в понеділок будемо сіяти соняшник на сьомому", NEXT_MON, "Поле 7"),
    ],
)
def test_a_day_said_in_words(farm: Dictionary, text: str, when: date, field: str) -> None:
    op = _only(text, farm)
    assert (op.op_date, op.field_names) == (when, (field,)), text


# =========================================================================== non-records


@pytest.mark.parametrize(
    "text",
    [
        "карбамід подорожчав до 18 тисяч за тонну",
        "селітра подорожчала, вже двадцять тисяч за тонну",
        "почому зараз Калісто?",
        "планували в понеділок культивувати Гірку, але перенесли",
        "план був посіяти соняшник на третьому в понеділок, але перенесли",
        "збиралися сіяти на Гірці, але сівалка зламалась",
        "агроном радить внести КАС на третьому",
    ],
)
def test_no_false_record(farm: Dictionary, text: str) -> None:
    assert PARSER.parse_all(text, farm, TODAY).operations == (), text


# =========================================================================== the readers


def _tokens(text: str) -> list[str]:
    return [tokenize(fold(word))[0] for word in text.split()]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("нуль три", 0.3),
        ("ноль восемь", 0.8),
        ("нуль двадцять п'ять", 0.25),
        ("нуль цілих п'ятнадцять сотих", 0.15),
        ("дві цілих п'ять десятих", 2.5),
        ("двадцятьма п'ятьма", 25.0),
    ],
)
def test_dictated_numbers(text: str, value: float) -> None:
    numbers = RULES.operations.dates.numbers
    spans = numbers.spans(_tokens(text), RULES.operations.is_unit_at)
    assert [s.value for s in spans] == [pytest.approx(value)], text


@pytest.mark.parametrize(
    ("word", "value"),
    [("четвертому", 4), ("четвертім", 4), ("седьмом", 7), ("одиннадцатом", 11), ("вісьмому", 8)],
)
def test_ordinals_by_lemma(word: str, value: int) -> None:
    assert RULES.operations.dates.numbers.ordinal(_tokens(word)[0]) == value


@pytest.mark.parametrize(("name", "said"), [("Паї", "на Паях"), ("Ярок", "на Ярку")])
def test_a_name_in_every_dictionary_form(name: str, said: str) -> None:
    entry = DictionaryEntry("field", "field:x", name, ())
    dictionary = RULES.vocabulary.dictionary([entry])
    assert dictionary.resolve("field", said) == entry


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("на четвер заплануй обприскування Гірки", date(2026, 5, 21)),
        ("минулого четверга полили Гірку", date(2026, 5, 7)),
    ],
)
def test_thursday_is_no_fourth(farm: Dictionary, text: str, when: date) -> None:
    op = _only(text, farm)
    assert (op.op_date, op.field_names) == (when, ("Гірка",)), text
