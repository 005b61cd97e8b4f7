"""The workbook and plan vs fact name a field the farmer wrote that waits for an
operator («поливали на верхньому»: no Верхнє in the farm yet) as it is called and
marked, not «без поля»; an operation that named no field at all still reads «без поля»
(the seeded farm is in reports_world.py)."""

from __future__ import annotations

from datetime import date

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import PendingTermRow
from db.uow import Database
from pipeline.farm.reports import build_operations_workbook, plan_vs_fact, waiting_fields
from pipeline.language.texts import Texts
from tests.integration import reports_world as world
from tests.integration.reports_world import CATALOG, FARM, OCT_END, OCT_START, open_sheets
from tests.integration.reports_world import operation as make_operation
from tests.shared import rulebook

factory = world.factory
DAY = date(2026, 10, 22)


async def _waiting(factory: async_sessionmaker[AsyncSession]) -> int:
    """Two irrigations (one planned, one done) waiting on «верхньому»; a sowing waiting
    on an unknown crop, with no field named."""
    async with factory() as session:
        field = PendingTermRow(
            farm_id=FARM, kind="field", term="верхньому", first_message="поливали на верхньому"
        )
        crop = PendingTermRow(farm_id=FARM, kind="crop", term="сорго", first_message="сорго")
        session.add_all([field, crop])
        await session.flush()
        for number, status in ((501, "planned"), (502, "done")):
            row = make_operation(
                FARM, number, (DAY, "irrigation", None, None, 10, "mm", None, status)
            )
            row.pending_term_id = field.id
            session.add(row)
        sowing = make_operation(FARM, 503, (DAY, "sowing", None, None, None, None, None, "done"))
        sowing.pending_term_id = crop.id
        session.add(sowing)
        await session.commit()
        return field.id


async def test_the_workbook_names_the_waiting_field(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    await _waiting(factory)
    report = await build_operations_workbook(
        Database(factory),
        FARM,
        OCT_START,
        OCT_END,
        texts=Texts(CATALOG, "uk"),
        name_rules=rulebook().vocabulary.rules,
    )
    sheets = open_sheets(report.content)
    shown = CATALOG.text("uk", "reports.field_unconfirmed", field="Верхнє")
    no_field = CATALOG.text("uk", "reports.no_field")
    ops = [row for row in sheets["Операції"][1:] if str(row[0]).startswith("2026-10-22")]
    assert sorted((row[1], row[3]) for row in ops) == [
        (shown, "Полив"),
        (shown, "Полив"),
        (no_field, "Сівба"),
    ]
    plan_fact = sheets["План-факт"]
    assert (shown, "Полив", 1, 1, 100) in plan_fact
    # The seeded sowing without a field and this one share the «без поля» row.
    assert (no_field, "Сівба", 0, 2, None) in plan_fact
    assert not any(row[0] == no_field and row[1] == "Полив" for row in plan_fact)


async def test_plan_vs_fact_keeps_the_waiting_field_apart(
    factory: async_sessionmaker[AsyncSession],
) -> None:
    term_id = await _waiting(factory)
    async with factory() as session:
        waiting = await waiting_fields(session, FARM, rulebook().vocabulary.rules)
        rows = await plan_vs_fact(session, FARM, OCT_START, OCT_END, waiting=waiting)
    assert waiting == {term_id: "Верхнє"}
    waiting = [row for row in rows if row.field_id is None and row.op_type == "irrigation"]
    assert [(row.pending_term_id, row.planned, row.done) for row in waiting] == [(term_id, 1, 1)]
    [sowing] = [row for row in rows if row.field_id is None and row.op_type == "sowing"]
    assert sowing.pending_term_id is None and sowing.done == 2
