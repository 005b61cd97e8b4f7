"""The journal read back through the bot's dispatcher (brief journalview): «покажи
журнал» lists the newest entries with «і ще N» and the report button, and the
button sends the Excel report."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import select

from bot.keyboards.pipeline import JournalReportCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import FarmProfileRow, FieldRow, OperationRow
from pipeline.actions import JournalReportAction
from pipeline.admin.edits import MAX_ROW_ID
from pipeline.farm.journal.export import LAST_DAY, MAX_DAYS
from pipeline.farm.localtime import local_today
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, INTRUDER, message_id, requests
from tests.integration.reports_world import open_sheets


async def _farm_with_kurhan(
    core: Core, user: str, operations: list[tuple[str, date]], *, key: str
) -> str:
    """The user's farm with the field Курган and ``operations`` (type, day) done on it,
    10 mm more for each; the farm's id."""
    async with core.db.sessions() as session:
        farm_id = (
            await session.execute(
                select(FarmProfileRow.farm_id).where(FarmProfileRow.user_id == user)
            )
        ).scalar_one()
        session.add(FieldRow(farm_id=farm_id, field_id="field:kurhan", name="Курган"))
        session.add_all(
            OperationRow(
                farm_id=farm_id,
                op_type=op_type,
                field_id="field:kurhan",
                op_date=day,
                status="done",
                quantity=float(10 + n),
                unit="mm",
                author=user,
                source_key=f"{key}:{n}",
            )
            for n, (op_type, day) in enumerate(operations)
        )
        await session.commit()
    return str(farm_id)


async def test_the_journal_is_read_back_with_the_report_button(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    user = f"tg:{FARMER}"
    await tg.say(FARMER, "привіт")
    assert await core.memory.editor.update_farm(user, farm_name="Калинівка")
    today = local_today(datetime.now(UTC), "Europe/Kyiv")
    await _farm_with_kurhan(core, user, [("irrigation", today)] * 11, key="hv")

    calls = await tg.say(FARMER, "покажи журнал")
    [params] = [p for m, p in requests(calls) if m == "sendMessage"]
    lines = params["text"].splitlines()
    items = [line for line in lines if line.startswith("• ")]
    assert len(items) == 10 and all("Курган" in line for line in items)
    # Newest first: the last one written (20 mm) is on top.
    assert "20 мм" in items[0] and "10 мм" not in params["text"]
    # A new farmer is a novice (issue 11): the novice's lines.
    assert catalog.text("uk", "level.novice.compose.journal.more", count=1) in lines
    # The listing's own days (the last month up to the farm's today), every field.
    [report] = _buttons(params)
    button = JournalReportCD.unpack(report)
    assert button.field is None
    assert date.fromordinal(button.start + button.days - 1) == today

    offer = next(call for call in calls if call.method == "sendMessage")
    sent = requests(await tg.press(FARMER, report, message_id(offer)))
    [document] = [p for m, p in sent if m == "sendDocument"]
    assert document["chat_id"] == FARMER


#: A month by the name a farmer types after «за» (the period reader's nominative).
MONTHS = (
    "січень", "лютий", "березень", "квітень", "травень", "червень",
    "липень", "серпень", "вересень", "жовтень", "листопад", "грудень",
)  # fmt: skip


async def _farm_with_two_months(core: Core) -> tuple[str, date, date]:
    """Eleven waterings of Курган in the month before last (a page of ten and one
    more) and three sprayings today; the farm, that month's first day and today."""
    user = f"tg:{FARMER}"
    assert await core.memory.editor.update_farm(user, farm_name="Калинівка")
    today = local_today(datetime.now(UTC), "Europe/Kyiv")
    earlier = (today.replace(day=1) - timedelta(days=40)).replace(day=1)
    farm_id = await _farm_with_kurhan(
        core,
        user,
        [("irrigation", earlier + timedelta(days=n)) for n in range(11)]
        + [("spraying", today)] * 3,
        key="tm",
    )
    return farm_id, earlier, today


def _buttons(params: dict[str, Any]) -> list[str]:
    """The listing's report button (each entry's own buttons, «je:…», left out)."""
    markup = params.get("reply_markup") or {"inline_keyboard": []}
    found = [b["callback_data"] for row in markup["inline_keyboard"] for b in row]
    return [data for data in found if not data.startswith("je:")]


async def test_the_button_under_an_earlier_month_sends_that_month(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """The bug: «і ще N» under September's list sent this month's report."""
    await tg.say(FARMER, "привіт")
    _, earlier, today = await _farm_with_two_months(core)
    calls = await tg.say(FARMER, f"покажи журнал за {MONTHS[earlier.month - 1]}")
    [params] = [p for m, p in requests(calls) if m == "sendMessage"]
    items = [line for line in params["text"].splitlines() if line.startswith("• ")]
    assert len(items) == 10
    assert all(catalog.text("uk", "operation.irrigation").lower() in i.lower() for i in items)
    assert catalog.text("uk", "level.novice.compose.journal.more", count=1) in params["text"]
    [pressed] = _buttons(params)

    offer = next(call for call in calls if call.method == "sendMessage")
    sent = await tg.press(FARMER, pressed, message_id(offer))
    requests(sent)
    [document] = [call for call in sent if call.method == "sendDocument"]
    assert document.chat_id == FARMER
    sheets = open_sheets(document.files["document"].data)
    days = [row[0] for row in sheets[catalog.text("uk", "reports.sheet_operations")][1:]]
    dated = [d.date() if isinstance(d, datetime) else d for d in days if d is not None]
    # All eleven of that month (the one not shown too), none of this month's.
    assert len(dated) == 11, days
    assert {(d.year, d.month) for d in dated} == {(earlier.year, earlier.month)}
    assert today not in dated
    said = " ".join(call.text or "" for call in sent)
    # The month as a farmer writes it: «01.10–31.10.2026», the year once.
    assert f"{earlier:%d.%m}–" in said and f"{earlier:%Y}" in said
    assert f"{today:%d.%m.%Y}" not in said


async def test_a_forged_or_stale_report_button_gets_the_expired_answer(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """Callback data is the client's: a period out of range or too long, a field row
    past any id, digits that are no number, or a real button pressed by someone with
    no farm: a polite "expired", never a file, never an error."""
    await tg.say(FARMER, "привіт")
    _, earlier, _ = await _farm_with_two_months(core)
    day = earlier.toordinal()
    expired = catalog.text("uk", "actions.expired")
    forged = [
        "jx:1:30",  # the year 1
        f"jx:{day}:100000",  # a period of 270 years
        f"jx:{day}:{MAX_DAYS + 1}",  # just past the longest a button carries
        f"jx:{day}:0",
        f"jx:{day}:-5",
        f"jx:{day}:30:99999999999999999999",  # a field row past any id
        "jx:abc:30",
        f"jx:{day}",
    ]
    for data in forged:
        sent = requests(await tg.press(FARMER, data, 1))
        assert [m for m, _ in sent if m == "sendDocument"] == [], data
        assert [p["text"] for m, p in sent if m == "sendMessage"] == [expired], data
    # A well-formed button of a field row that is not this farm's, and one pressed by
    # a user who has no farm at all: nothing of anyone's journal.
    stranger = JournalReportCD(start=day, days=30).pack()
    for user, data in (
        (FARMER, JournalReportCD(start=day, days=30, field=424242).pack()),
        (INTRUDER, stranger),
    ):
        sent = requests(await tg.press(user, data, 1))
        assert [m for m, _ in sent if m == "sendDocument"] == [], data
        assert [p["text"] for m, p in sent if m == "sendMessage"] == [expired], data


def test_the_report_button_round_trips_within_telegrams_64_bytes() -> None:
    action = JournalReportAction(LAST_DAY, LAST_DAY + timedelta(days=MAX_DAYS - 1), MAX_ROW_ID)
    packed = JournalReportCD.of(action).pack()
    assert len(packed.encode()) <= 64
    assert JournalReportCD.unpack(packed).to_action() == action
    september = JournalReportAction(date(2026, 9, 1), date(2026, 9, 30), None)
    assert JournalReportCD.unpack(JournalReportCD.of(september).pack()).to_action() == september
