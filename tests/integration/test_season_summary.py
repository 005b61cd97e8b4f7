"""The season summary with amounts kept apart: rate x area only where the area is
known (and the fields lacking one named), harvest per crop, irrigation per field,
what each product came to; and the areas a farmer gives in chat or onboarding."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import CropRow, FarmProfileRow, FieldRow, OperationRow, UserProfileRow
from pipeline.farm.journal.field_areas import name_and_area, read_areas
from pipeline.farm.reports.summary import season_summary
from pipeline.farm.reports.summary_text import summary_text
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.onboarding.flow import Step, text_answer
from pipeline.rulebook import Rulebook

FARM = "farm:areas"
DAY = date(2026, 7, 10)
RULES = Rulebook.load()


def _op(number: int, op_type: str, field_id: str | None, **values: object) -> OperationRow:
    return OperationRow(
        farm_id=FARM,
        op_type=op_type,
        field_id=field_id,
        op_date=DAY,
        status=str(values.pop("status", "done")),
        source_key=f"k{number}",
        author="tg:5",
        **values,
    )


@pytest.fixture
async def factory(
    session_factory: async_sessionmaker[AsyncSession],
) -> async_sessionmaker[AsyncSession]:
    async with session_factory() as session:
        session.add(UserProfileRow(user_id="tg:5"))
        await session.flush()
        session.add(FarmProfileRow(farm_id=FARM, user_id="tg:5"))
        await session.flush()
        session.add_all(
            [
                FieldRow(farm_id=FARM, field_id="field:pole-3", name="Поле 3", area_ha=85.0),
                FieldRow(farm_id=FARM, field_id="field:pole-10", name="Поле 10"),
                FieldRow(farm_id=FARM, field_id="field:pole-2", name="Поле 2", area_ha=20.0),
                CropRow(farm_id=FARM, crop_id="crop:maize", name="Кукурудза"),
            ]
        )
        session.add_all(
            [
                # 2 l/ha on 85 ha = 170 l; on Поле 10 (no area) it cannot be worked out.
                _op(1, "spraying", "field:pole-3", product="Раундап", rate=2.0, rate_unit="l/ha"),
                _op(2, "spraying", "field:pole-10", product="Раундап", rate=2.0, rate_unit="l/ha"),
                # Only a rate, only on a field without an area: never "0 л".
                _op(3, "spraying", "field:pole-10", product="Абакус", rate=1.5, rate_unit="l/ha"),
                # A rate with the area treated: 3 l/ha x 40 ha.
                _op(
                    4,
                    "spraying",
                    "field:pole-10",
                    product="Гліфос",
                    rate=3.0,
                    rate_unit="l/ha",
                    area_ha=40.0,
                ),
                # Irrigation: per field, not added up.
                _op(5, "irrigation", "field:pole-3", rate=20.0, rate_unit="mm"),
                _op(6, "irrigation", "field:pole-10", rate=30.0, rate_unit="mm"),
                _op(7, "irrigation", "field:pole-2", rate=25.0, rate_unit="mm"),
                # Harvest: 320 t at 9.8 t/ha stated; a yield alone on a field of known area.
                _op(
                    8,
                    "harvest",
                    "field:pole-10",
                    crop_id="crop:maize",
                    amount=320.0,
                    amount_unit="t",
                    yield_t_ha=9.8,
                ),
                _op(9, "harvest", "field:pole-2", crop_id="crop:maize", yield_t_ha=10.0),
                # Planned work counts for nothing here.
                _op(
                    10,
                    "spraying",
                    "field:pole-3",
                    product="Раундап",
                    rate=9.0,
                    rate_unit="l/ha",
                    status="planned",
                ),
            ]
        )
        await session.commit()
    return session_factory


async def test_amounts_only_where_the_area_is_known(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    async with factory() as session:
        summary = await season_summary(session, FARM, DAY, DAY, RULES.units)
    by_name = {item.product: item for item in summary.products}
    assert by_name["Раундап"].total == 170.0 and by_name["Раундап"].unresolved_operations == 1
    assert by_name["Гліфос"].total == 120.0 and by_name["Гліфос"].per_ha == 3.0
    assert by_name["Абакус"].total == 0.0 and by_name["Абакус"].rate_unknown_area == 1.5
    assert summary.fields_without_area == ["Поле 10"]
    assert summary.water_mm_by_field == {
        "field:pole-3": 20.0,
        "field:pole-10": 30.0,
        "field:pole-2": 25.0,
    }
    [maize] = summary.harvest
    # 320 t (Поле 10, area unknown) + 10 t/ha x 20 ha; the yield over the known area.
    assert maize.total_t == pytest.approx(520.0) and maize.yield_t_ha == pytest.approx(10.0)

    uk = summary_text(summary, Texts(catalog, "uk"))
    assert " 0 л" not in uk and "— 0 " not in uk
    assert "Абакус — 1,5 л/га, кількість невідома" in uk
    assert "Раундап — 170 л (2 л/га)" in uk
    # Natural order of fields, depths not summed.
    assert "Поле 2 — 25 мм; Поле 3 — 20 мм; Поле 10 — 30 мм" in uk
    assert "75 мм" not in uk
    assert "Урожай: Кукурудза — 520 т, 10 т/га" in uk
    assert catalog.text("uk", "reports.summary_no_area", fields="Поле 10") in uk
    assert "field:" not in uk and "crop:" not in uk
    en = summary_text(summary, Texts(catalog, "en"))
    assert "Abacus" not in en and "Абакус — 1.5 l/ha, amount unknown" in en


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("поле 3 — 85 га", [("field:pole-3", 85.0)]),
        ("Поле 3: 85,5 гектара", [("field:pole-3", 85.5)]),
        ("площа поля 2 - 20 га", [("field:pole-2", 20.0)]),
        ("поле 3 — 85 га, поле 10 — 40 ha", [("field:pole-3", 85.0), ("field:pole-10", 40.0)]),
        ("field 3 is 85 ha", [("field:pole-3", 85.0)]),
        ("Гора 12 га", [(None, 12.0)]),
        # An operation or anything else is not an area.
        ("обробили 40 га на полі 3", []),
        ("поле 3 — 85 мм", []),
        ("поле 3", []),
    ],
)
def test_areas_read_from_a_message(text: str, expected: list[tuple[str | None, float]]) -> None:
    from pipeline.farm.dictionary import DictionaryEntry

    dictionary = RULES.vocabulary.dictionary(
        [
            DictionaryEntry("field", "field:pole-3", "Поле 3", ("field 3",)),
            DictionaryEntry("field", "field:pole-2", "Поле 2", ()),
            DictionaryEntry("field", "field:pole-10", "Поле 10", ()),
        ]
    )
    found = read_areas(text, RULES.units, dictionary)
    assert [(item.field_id, item.area_ha) for item in found] == expected


def test_onboarding_fields_with_their_areas() -> None:
    changes = text_answer(
        Step.FIELDS,
        "Північне 40 га, поле 3 — 85,5 га і Гора",
        RULES.vocabulary.shared(),
        RULES.units,
    )
    assert changes is not None
    assert [name for _, name in changes.names] == ["Північне", "поле 3", "Гора"]
    assert changes.areas == {"field:pivnichne": 40.0, "field:pole-3": 85.5}
    assert name_and_area("Гора", RULES.units) is None


async def test_workbook_keeps_amounts_apart_in_the_farmers_words(
    factory: async_sessionmaker[AsyncSession], catalog: Catalog
) -> None:
    import io

    from openpyxl import load_workbook

    from db.uow import Database
    from pipeline.farm.reports import build_operations_workbook

    async with factory() as session:
        session.add(_op(20, "sowing", "field:pole-2", crop_id="crop:soy", rate=90.0,
                        rate_unit="k/ha"))  # fmt: skip
        await session.commit()
    report = await build_operations_workbook(
        Database(factory),
        FARM,
        DAY,
        DAY,
        texts=Texts(catalog, "uk"),
        shared_crops={"crop:soy": "Соя"},
    )
    sheet = load_workbook(io.BytesIO(report.content), read_only=True)["Операції"]
    rows = [tuple(row) for row in sheet.iter_rows(values_only=True)]
    by_product = {row[4]: row for row in rows[1:] if row[4]}
    assert by_product["Гліфос"][5:11] == (3, "л/га", None, None, 40, None)
    harvest = next(row for row in rows if row[3] == "Збирання врожаю")
    assert harvest[2] == "Кукурудза" and harvest[7:11] == (320, "т", None, 9.8)
    sowing = next(row for row in rows if row[3] == "Сівба")
    assert sowing[2] == "Соя" and sowing[5:7] == (90, "тис./га")
    cells = " ".join(str(cell) for row in rows for cell in row if cell is not None)
    assert "crop:" not in cells and "field:" not in cells and "kg/ha" not in cells
