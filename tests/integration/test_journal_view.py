"""The journal read back in chat (brief journalview), offline (no LLM) on a real
migrated database: a question about what is recorded lists the period's entries,
newest first, at most ten lines and «і ще N» with the report button; the farm's
local dates; one field's entries; an empty period said plainly."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import CropRow, FarmProfileRow, FieldRow
from pipeline.actions import EntryAction, EntryVerb, JournalReportAction
from pipeline.clock import Clock
from pipeline.crew.composer import ComposerParts
from pipeline.deep import DeepTemplate
from pipeline.farm.reports import op_label
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.memory import Memory
from tests.integration import deep_world as world
from tests.integration.deep_world import USER, say
from tests.integration.reports_world import open_sheets

no_internet, farm = world.no_internet, world.farm

NORTH, TWO = "field:pivnichne", "field:pole-2"
#: 22:30 UTC on 14 May is already 01:30 on 15 May on the farm's clock (Europe/Kyiv).
LATE_EVENING = datetime(2025, 5, 14, 22, 30, tzinfo=UTC)


@pytest.fixture
def pipeline_clock() -> Clock:
    return lambda: LATE_EVENING


async def _add(factory: async_sessionmaker[AsyncSession], *rows: object) -> None:
    async with factory() as session:
        session.add_all(rows)
        await session.commit()


def _item(catalog: Catalog, day: str, field: str, op_type: str, tail: str = "") -> str:
    return catalog.text(
        "uk",
        "compose.journal.item",
        date=day,
        field=field,
        operation=op_label(Texts(catalog, "uk"), op_type),
        crop="",
        amount=tail,
        planned="",
    )


async def test_the_offline_composer_answers(pipeline: Pipeline) -> None:
    assert isinstance(pipeline.deep, DeepTemplate)
    assert isinstance(pipeline.deep.producer, ComposerParts)


async def test_what_was_recorded_this_week_is_listed_newest_first(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    # Twelve sprayings of Поле 2, one a day up to the farm's today (15 May), and a
    # sowing of wheat on Північне on the farm's today.
    today = date(2025, 5, 15)
    rows = [
        world.operation_row(
            farm,
            "spraying",
            TWO,
            today - timedelta(days=n % 7),
            "done",
            source_key=f"jv:{n}",
            product="Децис",
        )
        for n in range(12)
    ]
    rows.append(
        world.operation_row(
            farm,
            "sowing",
            NORTH,
            today,
            "done",
            source_key="jv:99",
            crop_id="crop:wheat",
            quantity=220.0,
            unit="kg/ha",
        )
    )
    # A dose is shown as written, never rounded (0,25 л/га is not 0,2).
    rows.append(
        world.operation_row(
            farm,
            "spraying",
            NORTH,
            today,
            "done",
            source_key="jv:98",
            quantity=0.25,
            unit="l/ha",
            product="Децис",
        )
    )
    await _add(session_factory, *rows)
    reply = await say(pipeline, session_factory, "що записано за тиждень?")
    assert (reply.intent, reply.crew) == ("summary", ("sustainability",))
    catalog = pipeline.catalog
    lines = reply.text.splitlines()
    items = [line for line in lines if line.startswith("• ")]
    assert len(items) == 10  # at most ten lines
    # Newest first; the farm's 15 May (UTC still says the 14th) comes first.
    dates = [line[2:7] for line in items]
    assert dates == sorted(dates, key=lambda d: (d[3:], d[:2]), reverse=True)
    assert dates[0] == "15.05"
    # Names, never ids: the field, the crop, the operation, the amount with its unit.
    assert any("Північне" in line and "Пшениця" in line and "220 кг/га" in line for line in items)
    assert "field:" not in reply.text and "crop:" not in reply.text
    assert _item(catalog, "15.05", "Поле 2", "spraying", ", Децис") in items
    header = catalog.text(
        "uk",
        "compose.journal.header",
        start="09.05.2025",
        end="15.05.2025",
        where="",
        count=catalog.plural("uk", "plural.operations", 14),
    )
    assert header in lines
    # 14 entries, 10 shown: the rest is in the report of the same days, a button away.
    assert catalog.text("uk", "compose.journal.more", count=4) in lines
    week = JournalReportAction(date(2025, 5, 9), date(2025, 5, 15), None)
    actions = [b.action for row in reply.buttons for b in row]
    assert actions[0] == week
    # Then each entry listed, newest first, a tap away from its card (🗑, ✅, 🕘).
    shown = [a for a in actions[1:] if isinstance(a, EntryAction)]
    assert len(shown) == len(actions) - 1 == 10
    assert all(a.verb is EntryVerb.SHOW for a in shown)
    # Not the season's totals.
    assert catalog.text("uk", "reports.summary_no_water") not in reply.text


async def test_one_fields_work_in_a_month(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    """The seeded farm's April: Північне was watered on the 10th (20 mm), two more
    waterings planned on the 5th and the 12th; Поле 2 had nothing."""
    reply = await say(pipeline, session_factory, "які роботи були на Північному у квітні")
    catalog = pipeline.catalog
    items = [line for line in reply.text.splitlines() if line.startswith("• ")]
    planned = catalog.text("uk", "compose.journal.planned")
    irrigation = op_label(Texts(catalog, "uk"), "irrigation")
    assert items == [
        _item(catalog, "12.04", "Північне", "irrigation") + planned,
        _item(catalog, "10.04", "Північне", "irrigation", ", 20 мм"),
        _item(catalog, "05.04", "Північне", "irrigation") + planned,
    ]
    assert irrigation in items[0]
    where = catalog.text("uk", "compose.journal.on_field", field="Північне")
    assert f"01.04.2025–30.04.2025{where}" in reply.text
    # Few lines: no "more", no report button.
    actions = [b.action for row in reply.buttons for b in row]
    assert not any(isinstance(action, JournalReportAction) for action in actions)
    assert catalog.text("uk", "compose.journal.more", count=1)[:8] not in reply.text


async def test_an_empty_period_is_said_plainly(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "покажи журнал за березень")
    none = pipeline.catalog.text(
        "uk", "compose.journal.none", start="01.03.2025", end="31.03.2025", where=""
    )
    assert none in reply.text
    assert "запиши" in none  # how to record is suggested
    assert not any(line.startswith("• ") for line in reply.text.splitlines())


async def test_an_expert_reads_the_terse_lines(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
    farm: str,
) -> None:
    assert await memory.editor.set_expertise(USER, "expert", by_operator=False)
    reply = await say(pipeline, session_factory, "що записали у квітні на Північному")
    catalog = pipeline.catalog
    line = catalog.text(
        "uk",
        "level.expert.compose.journal.item",
        date="10.04",
        field="Північне",
        operation=op_label(Texts(catalog, "uk"), "irrigation"),
        crop="",
        amount=", 20 мм",
        planned="",
    )
    assert line in reply.text.splitlines()


async def test_totals_are_still_the_season_summary(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    reply = await say(pipeline, session_factory, "підсумки сезону")
    assert "20 мм" in reply.text
    assert not any(line.startswith("• 10.04") for line in reply.text.splitlines())


async def test_a_crop_is_read_by_the_farms_own_name(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    await _add(
        session_factory,
        CropRow(farm_id=farm, crop_id="crop:sunflower", name="Соняшник Ясон"),
        world.operation_row(
            farm,
            "sowing",
            TWO,
            date(2025, 5, 2),
            "done",
            source_key="jv:7",
            crop_id="crop:sunflower",
        ),
    )
    reply = await say(pipeline, session_factory, "покажи журнал")
    assert any(
        line.startswith("• 02.05") and "Соняшник Ясон" in line for line in reply.text.splitlines()
    )


async def test_one_fields_report_button_sends_that_field_and_those_days(
    pipeline: Pipeline, session_factory: async_sessionmaker[AsyncSession], farm: str
) -> None:
    """Eleven more waterings of Північне in April and one of Поле 2: April's list of
    Північне is cut at ten, and its button sends April's workbook of Північне alone
    (all fourteen), not this month's and not Поле 2's."""
    await _add(
        session_factory,
        *(
            world.operation_row(
                farm, "irrigation", NORTH, date(2025, 4, 14 + n), "done", source_key=f"jf:{n}"
            )
            for n in range(11)
        ),
        world.operation_row(farm, "spraying", TWO, date(2025, 4, 20), "done", source_key="jf:two"),
    )
    reply = await say(pipeline, session_factory, "які роботи були на Північному у квітні")
    assert len([line for line in reply.text.splitlines() if line.startswith("• ")]) == 10
    [button, *_entries] = reply.buttons[0]  # the report first, then the entries'
    action = button.action
    assert isinstance(action, JournalReportAction)
    assert (action.start, action.end) == (date(2025, 4, 1), date(2025, 4, 30))
    assert button.text == pipeline.catalog.text("uk", "compose.journal.report_button")
    async with session_factory() as session:
        north_row = await session.scalar(
            select(FieldRow.id).where(FieldRow.farm_id == farm, FieldRow.field_id == NORTH)
        )
    assert action.field_row == north_row

    sent = await pipeline.handle_action(action, world.incoming(""))
    assert sent.document is not None
    sheets = open_sheets(sent.document.content)
    rows = sheets[pipeline.catalog.text("uk", "reports.sheet_operations")][1:]
    dated = [row for row in rows if row[0] is not None]
    assert len(dated) == 14
    assert {row[1] for row in dated} == {"Північне"}
    assert all(row[0].month == 4 for row in dated)  # type: ignore[union-attr]
    assert "01.04–30.04.2025" in sent.text


async def test_a_report_button_of_another_farms_field_is_expired(
    pipeline: Pipeline,
    memory: Memory,
    session_factory: async_sessionmaker[AsyncSession],
    farm: str,
) -> None:
    """A field row of someone else's farm (a forged button) sends nothing of it."""
    other = "tg:777"
    await say(pipeline, session_factory, "привіт", user=other)
    assert await memory.editor.update_farm(other, farm_name="Чужа")
    async with session_factory() as session:
        theirs = await session.scalar(
            select(FarmProfileRow.farm_id).where(FarmProfileRow.user_id == other)
        )
        assert theirs is not None and theirs != farm
        session.add(FieldRow(farm_id=theirs, field_id="field:their", name="Чуже"))
        await session.commit()
        their_row = await session.scalar(
            select(FieldRow.id).where(FieldRow.field_id == "field:their")
        )
    assert their_row is not None
    forged = JournalReportAction(date(2025, 4, 1), date(2025, 4, 30), their_row)
    reply = await pipeline.handle_action(forged, world.incoming(""))
    assert reply.document is None
    assert reply.text == pipeline.catalog.text("uk", "actions.expired")
    # An oversized span (past what a button may carry) is expired too, never a report.
    years = JournalReportAction(date(2020, 1, 1), date(2025, 4, 30), None)
    reply = await pipeline.handle_action(years, world.incoming(""))
    assert (reply.document, reply.text) == (None, pipeline.catalog.text("uk", "actions.expired"))
