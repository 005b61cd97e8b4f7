"""Reading a farm operation from a message without an LLM (issue "The farm's data", 2).

A table of real-looking messages in Ukrainian, Russian, English and surzhyk, each
with every field the parser must get right; then messages that are not operations at
all. The farm and ``TODAY`` (a Thursday) are in operation_world.py, the dictionary's
name matching in test_farm_dictionary.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import pytest

from pipeline.farm.dictionary import Dictionary
from pipeline.farm.journal.parsing import ParsedOperation
from tests.unit import operation_world as world
from tests.unit.operation_world import (
    FRI,
    LAST_SAT,
    MON,
    NEXT_MON,
    NEXT_THU,
    NEXT_TUE,
    NEXT_WED,
    SAT,
    TODAY,
    TUE,
    WED,
    parse_operation,
)

#: The farm's dictionary (a module fixture).
farm = world.farm


# =========================================================================== the table


@dataclass(frozen=True)
class Row:
    text: str
    op: str
    field: str | None = None
    crop: str | None = None
    qty: float | None = None
    unit: str | None = None
    product: str | None = None
    when: int | date = 0  # days from TODAY, or a date
    status: str = "done"
    unknown: tuple[tuple[str, str], ...] = ()
    several: tuple[str, ...] = ()

    @property
    def op_date(self) -> date:
        return self.when if isinstance(self.when, date) else TODAY + timedelta(days=self.when)


ROWS: list[Row] = [
    # ------------------------------------------------------------------ Ukrainian
    Row("запиши полив 20 мм на Північному вчора", "irrigation", "field:pivnichne",
        qty=20, unit="mm", when=-1),
    Row("внеси обприскування фунгіцидом Абакус 1,5 л/га поле 3 сьогодні", "spraying",
        "field:pole-3", qty=1.5, unit="l/ha", product="Абакус"),
    Row("вчора посіяли кукурудзу на південному 25 кг/га", "sowing", "field:pivdenne",
        "crop:maize", 25, "kg/ha", when=-1),
    Row("заплануй оранку на полі 7 на 12.05", "tillage", "field:pole-7", when=TUE,
        status="planned"),
    Row("завтра підживлення аміачною селітрою 150 кг/га на Західному", "fertilising",
        "field:zakhidne", qty=150, unit="kg/ha", product="аміачна селітра", when=1,
        status="planned"),
    Row("в понеділок культивація поля 4", "tillage", when=MON,
        unknown=(("field", "поле 4"),)),
    Row("полили 15мм 03.06.2026 на полі Гора", "irrigation", qty=15, unit="mm",
        when=date(2026, 6, 3), status="planned", unknown=(("field", "гора"),)),
    Row("на полях 2, 6 і 9 обприскали вчора", "spraying", when=-1,
        unknown=(("field", "поле 2"), ("field", "поле 6")),
        several=("поле 2", "поле 6", "field:pole-9")),
    Row("посіяли вику на Гірці", "sowing", "field:hirka",
        unknown=(("crop", "вику"),)),
    Row("на третьому полі зібрали 45 ц/га пшениці", "harvest", "field:pole-3",
        "crop:wheat", 4.5, "t/ha"),
    Row("3-є поле прикатали вчора", "rolling", "field:pole-3", when=-1),
    Row("на п'ятому полі дискування", "tillage", unknown=(("field", "поле 5"),)),
    Row("Вчора обприскали Гірку інсектицидом Децис 0,25 л/га", "spraying", "field:hirka",
        qty=0.25, unit="l/ha", product="Децис", when=-1),
    Row("запиши посів озимої пшениці на Західному 220 кг/га 10.10.2025", "sowing",
        "field:zakhidne", "crop:winter-wheat", 220, "kg/ha", when=date(2025, 10, 10)),
    Row("полив на північному 25мм", "irrigation", "field:pivnichne", qty=25, unit="mm"),
    Row("внесли селітру 100 кг на гектар на північному полі", "fertilising",
        "field:pivnichne", qty=100, unit="kg/ha", product="аміачна селітра"),
    Row("зібрали соняшник з південного 3,2 т з гектара", "harvest", "field:pivdenne",
        "crop:sunflower", 3.2, "t/ha"),
    Row("культивували поле 7 в суботу", "tillage", "field:pole-7", when=LAST_SAT),
    Row("буде полив поле 3 в суботу", "irrigation", "field:pole-3", when=SAT,
        status="planned"),
    Row("треба обприскати ріпак на Гірці", "spraying", "field:hirka", "crop:rapeseed",
        status="planned"),
    Row("провели десикацію соняшнику Реглон 2 л/га поле 9", "spraying", "field:pole-9",
        "crop:sunflower", 2, "l/ha", product="Реглон"),
    Row("полили Північне поле 30 мм позавчора", "irrigation", "field:pivnichne",
        qty=30, unit="mm", when=-2),
    Row("посадили картоплю на Гірці 3 т/га", "sowing", "field:hirka", "crop:potato",
        3, "t/ha"),
    Row("обмолот кукурудзи поле 7 9,5 т/га 12.05", "harvest", "field:pole-7",
        "crop:maize", 9.5, "t/ha", when=TUE),
    Row("покос люцерни на Західному", "mowing", "field:zakhidne", "crop:alfalfa"),
    Row("огляд посівів на Північному", "scouting", "field:pivnichne"),
    Row("запиши що полили Південне вчора", "irrigation", "field:pivdenne", when=-1),
    Row("посіємо гречку на Західному в понеділок", "sowing", "field:zakhidne",
        "crop:buckwheat", when=NEXT_MON, status="planned"),
    Row("внеси: обприскування Раундап 3 л/га на полях 3 і 7 сьогодні", "spraying",
        qty=3, unit="l/ha", product="Раундап", several=("field:pole-3", "field:pole-7")),
    Row("дискування Поля 3 та Поля 7", "tillage", several=("field:pole-3", "field:pole-7")),
    Row("полив на 3 полі", "irrigation", "field:pole-3"),
    Row("внесли КАС-32 100 л/га на поле 7", "fertilising", "field:pole-7", qty=100,
        unit="l/ha", product="КАС-32"),
    Row("наступного вівторка підживлення NPK 16:16:16 200 кг/га поле 3", "fertilising",
        "field:pole-3", qty=200, unit="kg/ha", product="NPK 16:16:16", when=NEXT_TUE,
        status="planned"),
    Row("через 3 дні обприскування поле 9", "spraying", "field:pole-9", when=3,
        status="planned"),
    Row("2 дні тому скосили траву на полі 7", "mowing", "field:pole-7", when=-2),
    Row("12 травня посіяли соняшник на Південному", "sowing", "field:pivdenne",
        "crop:sunflower", when=TUE),
    Row("обприскали поле Грушеве гербіцидом", "spraying", product="гербіцид",
        unknown=(("field", "грушеве"),)),
    Row("полили на Сонячному 15 мм", "irrigation", qty=15, unit="mm",
        unknown=(("field", "сонячному"),)),
    Row("посів сої 90 кг/га поле 7", "sowing", "field:pole-7", "crop:soy", 90, "kg/ha"),
    Row("селітра 150 кг/га поле 3 вчора", "fertilising", "field:pole-3", qty=150,
        unit="kg/ha", product="аміачна селітра", when=-1),
    Row("плануємо обприскування в понеділок на Гірці", "spraying", "field:hirka",
        when=NEXT_MON, status="planned"),
    Row("на четвер запланували полив поле 9", "irrigation", "field:pole-9", when=NEXT_THU,
        status="planned"),
    Row("минулого понеділка обприскали поле 3", "spraying", "field:pole-3", when=MON),
    Row("внеси підживлення карбамідом 100 кг/га на Ставку", "fertilising", "field:stavok",
        qty=100, unit="kg/ha", product="карбамід"),
    Row("жнива пшениці на Північному 5,6 т/га", "harvest", "field:pivnichne", "crop:wheat",
        5.6, "t/ha"),
    Row("боронування на західному полі позавчора", "tillage", "field:zakhidne", when=-2),
    Row("полили північне поле 20 мм в середу", "irrigation", "field:pivnichne", qty=20,
        unit="mm", when=WED),
    Row("обробили гербіцидом поле 9", "spraying", "field:pole-9", product="гербіцид"),
    Row("внесли гербіцид Гезагард 3 л/га на поле 7", "spraying", "field:pole-7", qty=3,
        unit="l/ha", product="Гезагард"),
    Row("оранка під кукурудзу на Західному 12 травня", "tillage", "field:zakhidne",
        "crop:maize", when=TUE),
    Row("на В’язовому посіяли ячмінь 180 кг/га", "sowing", "field:viazove", "crop:barley",
        180, "kg/ha"),
    Row("зібрали 120 тонн пшениці з поля 3", "harvest", "field:pole-3", "crop:wheat", 120,
        "t"),
    Row("обробка насіння протруйником Максим 2 л/т", "seed_treatment", qty=2, unit="l/t",
        product="Максим"),
    Row("вчора на Гірці посіяли кукурудзу DKC 3939 70 тис/га", "sowing", "field:hirka",
        "crop:maize", 70, "k/ha", product="DKC 3939", when=-1),
    Row("полив потрібен на Північному", "irrigation", "field:pivnichne", status="planned"),
    Row("Обприскування — поле 3; препарат: Абакус; норма: 1,5 л/га; дата: 13.05",
        "spraying", "field:pole-3", qty=1.5, unit="l/ha", product="Абакус", when=WED),
    Row("обприскування гербіцидом на полі Гора і на Гірці", "spraying",
        product="гербіцид", unknown=(("field", "гора"),), several=("гора", "field:hirka")),
    Row("внесли 2 т/га вапна на поле 3", "fertilising", "field:pole-3", qty=2, unit="t/ha",
        product="вапно"),
    # ------------------------------------------------------------------ Russian
    Row("опрыскали гербицидом поле 2 позавчера 2 л/га", "spraying", qty=2, unit="l/ha",
        product="гербіцид", when=-2, unknown=(("field", "поле 2"),)),
    Row("посеяли подсолнечник на Северном позавчера", "sowing", crop="crop:sunflower",
        when=-2, unknown=(("field", "северном"),)),
    Row("опрыскивал поле 3 в четверг", "spraying", "field:pole-3"),
    Row("в следующий понедельник опрыскивание поле 7", "spraying", "field:pole-7",
        when=NEXT_MON, status="planned"),
    Row("сеем кукурузу на южном завтра", "sowing", crop="crop:maize", when=1,
        status="planned", unknown=(("field", "южном"),)),
    Row("удобрили поле 3 аммиачной селитрой 150 кг/га вчера", "fertilising",
        "field:pole-3", qty=150, unit="kg/ha", product="аміачна селітра", when=-1),
    Row("полив 30 мм на поле 9 послезавтра", "irrigation", "field:pole-9", qty=30,
        unit="mm", when=2, status="planned"),
    Row("убрали ячмень с поля 7 вчера 4,5 т/га", "harvest", "field:pole-7", "crop:barley",
        4.5, "t/ha", when=-1),
    Row("запланируй вспашку поле 9 на 20.05", "tillage", "field:pole-9", when=NEXT_WED,
        status="planned"),
    Row("подкормка КАС 120 л/га поле 3 сегодня", "fertilising", "field:pole-3", qty=120,
        unit="l/ha", product="КАС"),
    # A Ukrainian name spelled the Russian way (и for і) is the same field.
    Row("культивация на Гирке в субботу", "tillage", "field:hirka", when=LAST_SAT),
    Row("собрали 5 тонн картофеля с Гірки", "harvest", "field:hirka", "crop:potato", 5,
        "t"),
    # ------------------------------------------------------------------ English
    Row("log spraying on field 9, fungicide, 1.5 l/ha", "spraying", "field:pole-9",
        qty=1.5, unit="l/ha", product="фунгіцид"),
    Row("harvested wheat on North field yesterday 6.2 t/ha", "harvest", "field:pivnichne",
        "crop:wheat", 6.2, "t/ha", when=-1),
    Row("sowed corn on field 3 on 2026-05-10 at 70 kg/ha", "sowing", "field:pole-3",
        "crop:maize", 70, "kg/ha", when=date(2026, 5, 10)),
    Row("will spray field 7 tomorrow with herbicide", "spraying", "field:pole-7",
        product="гербіцид", when=1, status="planned"),
    Row("scouting on south field today", "scouting", "field:pivdenne"),
    Row("planned irrigation on North field for friday 25 mm", "irrigation",
        "field:pivnichne", qty=25, unit="mm", when=FRI, status="planned"),
    Row("Irrigated the south field 30mm on May 12", "irrigation", "field:pivdenne", qty=30,
        unit="mm", when=TUE),
    Row("applied urea 150 kg/ha to field 9 yesterday", "fertilising", "field:pole-9",
        qty=150, unit="kg/ha", product="карбамід", when=-1),
    Row("fertilized field 3 with UAN 100 l/ha", "fertilising", "field:pole-3", qty=100,
        unit="l/ha", product="КАС"),
    Row("sowed sunflower field 7 3 days ago", "sowing", "field:pole-7", "crop:sunflower",
        when=-3),
    Row("spraying on field 3 in 2 days", "spraying", "field:pole-3", when=2,
        status="planned"),
    Row("sprayed Roundup 2 l/ha on south field last Monday", "spraying", "field:pivdenne",
        qty=2, unit="l/ha", product="Раундап", when=MON),
    Row("plowed the hill field on Tuesday", "tillage", "field:hirka", when=TUE),
    Row("schedule irrigation of West field next Wednesday 20 mm", "irrigation",
        "field:zakhidne", qty=20, unit="mm", when=NEXT_WED, status="planned"),
    Row("harvest barley field 9 yesterday 5,8 t/ha", "harvest", "field:pole-9",
        "crop:barley", 5.8, "t/ha", when=-1),
    Row("sowed vetch on field 7", "sowing", "field:pole-7", unknown=(("crop", "vetch"),)),
    Row("Record: fertilizer 120 kg/ha urea field 9, 10 May", "fertilising", "field:pole-9",
        qty=120, unit="kg/ha", product="карбамід", when=date(2026, 5, 10)),
    Row("Spraying planned for field 3 on 05/20", "spraying", "field:pole-3",
        when=NEXT_WED, status="planned"),
    # ------------------------------------------------------------------ surzhyk, typos
    Row("обприскуваня пвнічного фунгіцидом вчора", "spraying", "field:pivnichne",
        product="фунгіцид", when=-1),
    Row("вчора обприскали поле 3 фунгіцидом Abacus", "spraying", "field:pole-3",
        product="Абакус", when=-1),
    Row("сьодні полили Південне 20 мм", "irrigation", "field:pivdenne", qty=20, unit="mm"),
    Row("посіяли подсолнух на полі 3 вчора", "sowing", "field:pole-3", "crop:sunflower",
        when=-1),
    Row("опрыскали ріпак на Гірці вчора інсектицидом", "spraying", "field:hirka",
        "crop:rapeseed", product="інсектицид", when=-1),
    Row("пидживили пшеницю карбамідом на полі 7", "fertilising", "field:pole-7",
        "crop:wheat", product="карбамід"),
    Row("культивация поля 3 завтра", "tillage", "field:pole-3", when=1, status="planned"),
    Row("полив Гірки 10 мм", "irrigation", "field:hirka", qty=10, unit="mm"),
    Row("запиши полив 25 милиметров поле 3 вчера", "irrigation", "field:pole-3", qty=25,
        unit="mm", when=-1),
    # ------------------------------------------------------------------ issue 12
    # A brand alone implies its operation; products by their canonical name.
    Row("Прима Форте 0,6 л/га на пшениці, поле 9", "spraying", "field:pole-9", "crop:wheat",
        0.6, "l/ha", product="Пріма Форте"),
    Row("обприскали Гірку Раундапом", "spraying", "field:hirka", product="Раундап"),
    Row("Раундап 3 л/га по стерні на Ставку, обробили 40 га", "spraying", "field:stavok",
        qty=3, unit="l/ha", product="Раундап"),
    Row("внесли двісті кіло аміачки на гектар на Ставку", "fertilising", "field:stavok",
        qty=200, unit="kg/ha", product="аміачна селітра"),
    Row("обприскали поле 3 сульфатом амонію 100 кг/га", "fertilising", "field:pole-3",
        qty=100, unit="kg/ha", product="сульфат амонію"),
    # Number words and farmers' units.
    Row("посіяли пшеницю 150 кило на гектар на полі 3", "sowing", "field:pole-3",
        "crop:wheat", 150, "kg/ha"),
    Row("два дні тому полили поле 7 20 мм", "irrigation", "field:pole-7", qty=20, unit="mm",
        when=-2),
    Row("намолотили по 45 центнерів з гектара ячменю на полі 7", "harvest", "field:pole-7",
        "crop:barley", 4.5, "t/ha"),
    # Plans.
    Row("на наступному тижні обприскаємо поле 9", "spraying", "field:pole-9", when=NEXT_MON,
        status="planned"),
    Row("запиши: 15.05 планували підживлення поле 3", "fertilising", "field:pole-3", when=FRI,
        status="planned"),
    Row("заплануй обприскування поле 3 на 10.12", "spraying", "field:pole-3",
        when=date(2026, 12, 10), status="planned"),
    # A name that is no product: an unknown field.
    Row("полили Вербове 20 мм", "irrigation", qty=20, unit="mm",
        unknown=(("field", "вербове"),)),
]  # fmt: skip


def _actual(parsed: ParsedOperation) -> dict[str, object]:
    return {
        "op": parsed.op_type,
        "field": parsed.field_id,
        "crop": parsed.crop_id,
        "qty": parsed.quantity,
        "unit": parsed.unit,
        "product": parsed.product,
        "date": parsed.op_date,
        "status": parsed.status,
        "unknown": parsed.unknown_terms,
        "several": parsed.several_fields,
    }


def _expected(row: Row) -> dict[str, object]:
    return {
        "op": row.op,
        "field": row.field,
        "crop": row.crop,
        "qty": None if row.qty is None else pytest.approx(row.qty),
        "unit": row.unit,
        "product": row.product,
        "date": row.op_date,
        "status": row.status,
        "unknown": row.unknown,
        "several": row.several,
    }


@pytest.mark.parametrize("row", ROWS, ids=[row.text for row in ROWS])
def test_message_table(farm: Dictionary, row: Row) -> None:
    parsed = parse_operation(row.text, farm, TODAY)
    assert parsed is not None, row.text
    assert _actual(parsed) == _expected(row)


def test_table_is_large_and_multilingual() -> None:
    assert len(ROWS) >= 60
    latin = sum(row.text.isascii() for row in ROWS)
    assert latin >= 10
    assert len(ROWS) - latin >= 50


# =========================================================================== details


def test_phrases_are_reported_as_written(farm: Dictionary) -> None:
    parsed = parse_operation("вчора посіяли кукурудзу на Південному", farm, TODAY)
    assert parsed is not None
    assert parsed.field_phrase == "Південному"
    assert parsed.crop_phrase == "кукурудзу"
    unknown = parse_operation("полили 15мм на полі Гора", farm, TODAY)
    assert unknown is not None
    assert (unknown.field_id, unknown.field_phrase) == (None, "Гора")


def test_an_unknown_name_never_gets_an_id(farm: Dictionary) -> None:
    for text in ("обприскали Лісове поле", "посіяли на полі Дубки", "полив на Дальньому"):
        parsed = parse_operation(text, farm, TODAY)
        assert parsed is not None, text
        assert parsed.field_id is None
        assert parsed.unknown_terms and parsed.unknown_terms[0][0] == "field"


def test_planned_status_follows_markers_and_dates(farm: Dictionary) -> None:
    def status(text: str) -> str | None:
        parsed = parse_operation(text, farm, TODAY)
        return parsed.status if parsed else None

    assert status("запиши обприскування поле 3") == "done"
    assert status("запиши обприскування поле 3 на 20.05") == "planned"
    assert status("заплануй обприскування поле 3") == "planned"
    assert status("log spraying field 3") == "done"
    assert status("plan spraying field 3") == "planned"
    assert status("обприскаємо поле 3") == "planned"
    assert status("обприскали поле 3") == "done"


def test_weekday_direction(farm: Dictionary) -> None:
    def when(text: str) -> date | None:
        parsed = parse_operation(text, farm, TODAY)
        return parsed.op_date if parsed else None

    assert when("в понеділок полили поле 3") == MON
    assert when("в понеділок заплануй полив поле 3") == NEXT_MON
    assert when("на понеділок полив поле 3") == NEXT_MON
    assert when("last thursday sprayed field 3") == TODAY - timedelta(days=7)
    assert when("у четвер полили поле 3") == TODAY


def test_units_are_canonical(farm: Dictionary) -> None:
    cases = {
        "полив 20 міліметрів поле 3": (20, "mm"),
        "обприскали 200 мл/га поле 3": (0.2, "l/ha"),
        "зібрали 62 ц/га поле 3": (6.2, "t/ha"),
        "посіяли 1,2 т поле 3": (1.2, "t"),
        "harvested 5.5 tonnes per hectare field 3": (5.5, "t/ha"),
        "посіяли 150 кілограмів на гектар поле 3": (150, "kg/ha"),
        "полили 300 кубів на га поле 3": (300, "m3/ha"),
        "посіяли поле 3 50 га": (50, "ha"),
    }
    for text, (qty, unit) in cases.items():
        parsed = parse_operation(text, farm, TODAY)
        assert parsed is not None, text
        assert parsed.quantity == pytest.approx(qty), text
        assert parsed.unit == unit, text


def test_dates_in_every_format(farm: Dictionary) -> None:
    cases = {
        "полив поле 3 12.05": TUE,
        "полив поле 3 12/05": TUE,
        "полив поле 3 12.05.26": TUE,
        "полив поле 3 2026-05-12": TUE,
        "полив поле 3 12 травня 2026": TUE,
        "полив поле 3 12-го мая": TUE,
        "watered field 3 on 12th of May": TUE,
        "полив поле 3 тиждень тому": TODAY - timedelta(days=7),
        "полив поле 3 31.02": TODAY,  # not a date: today
    }
    for text, expected in cases.items():
        parsed = parse_operation(text, farm, TODAY)
        assert parsed is not None, text
        assert parsed.op_date == expected, text


def test_a_decimal_rate_is_not_a_date(farm: Dictionary) -> None:
    parsed = parse_operation("обприскали поле 3 1.50 л/га", farm, TODAY)
    assert parsed is not None
    assert (parsed.quantity, parsed.unit, parsed.op_date) == (1.5, "l/ha", TODAY)


# =========================================================================== not operations


@pytest.mark.parametrize(
    "text",
    [
        "привіт",
        "яка вологість на полі 2",
        "зроби звіт",
        "зроби звіт в excel за жовтень",
        "графік вологості",
        "план/факт за квітень",
        "коли краще обприскувати?",
        "чи треба поливати Північне",
        "ще не посіяли кукурудзу",
        "не поливали Північне вже тиждень",
        "did we spray field 3?",
        "what did we plant on North field",
        "how much rain fell yesterday",
        "купили селітру 5 т",
        "погода завтра",
        "привет, как дела",
        "покажи поливи за тиждень",
        "скільки опадів було вчора",
        "дякую",
        "запиши",
        "",
        "👍",
        "Завтра дощ, полив не потрібен",
        "скасуй обприскування поле 3",
        "Дякую, все записав",
        "Посівна йде добре",
        "Абакус 1,5 л/га",
        "Як справи з поливом",
        "У мене 3 поля пшениці",
        "Вчора був дощ 15 мм",
        "порадь чим обприскати соняшник",
    ],
)
def test_not_an_operation(farm: Dictionary, text: str) -> None:
    assert parse_operation(text, farm, TODAY) is None
