"""The journal read back through the bot's dispatcher (brief journalview): «покажи
журнал» lists the newest entries with «і ще N» and the report button, and the
button sends the Excel report."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from bot.factory import Core
from bot.keyboards.pipeline import ExampleCD
from bot.local_session import LocalBot
from db.models import FarmProfileRow, FieldRow, OperationRow
from pipeline.farm.localtime import local_today
from pipeline.i18n import Catalog
from tests.handlers.conftest import FARMER, message_id, requests


async def test_the_journal_is_read_back_with_the_report_button(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    user = f"tg:{FARMER}"
    await tg.say(FARMER, "привіт")
    assert await core.memory.editor.update_farm(user, farm_name="Калинівка")
    today = local_today(datetime.now(UTC), "Europe/Kyiv")
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
                op_type="irrigation",
                field_id="field:kurhan",
                op_date=today,
                status="done",
                quantity=float(10 + n),
                unit="mm",
                author=user,
                source_key=f"hv:{n}",
            )
            for n in range(11)
        )
        await session.commit()

    calls = await tg.say(FARMER, "покажи журнал")
    [params] = [p for m, p in requests(calls) if m == "sendMessage"]
    lines = params["text"].splitlines()
    items = [line for line in lines if line.startswith("• ")]
    assert len(items) == 10 and all("Курган" in line for line in items)
    # Newest first: the last one written (20 mm) is on top.
    assert "20 мм" in items[0] and "10 мм" not in params["text"]
    # A new farmer is a novice (issue 11): the novice's lines.
    assert catalog.text("uk", "level.novice.compose.journal.more", count=1) in lines
    report = ExampleCD(example="report").pack()
    pressed = [b["callback_data"] for row in params["reply_markup"]["inline_keyboard"] for b in row]
    assert report in pressed

    offer = next(call for call in calls if call.method == "sendMessage")
    sent = requests(await tg.press(FARMER, report, message_id(offer)))
    [document] = [p for m, p in sent if m == "sendDocument"]
    assert document["chat_id"] == FARMER
