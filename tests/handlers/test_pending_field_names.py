"""A field Stepan does not know yet («обприскали на північному полі»: no Північне in
the farm's profile) is shown as it is called, «Північне», not as the farmer inflected
it: on the operators' /pending list and in the farmer's journal, marked as not yet
confirmed, never as «без поля» (pipeline/farm/words/name_match.py ``field_name``)."""

from __future__ import annotations

from typing import Any

from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from pipeline.actions import JournalVerb
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, OPERATOR, message_id, requests

SPRAYED = "обприскали на північному полі вчора"


def _texts(calls: list[ApiCall]) -> str:
    return "\n".join(p.get("text", "") for m, p in requests(calls) if m == "sendMessage")


def _write_button(calls: list[ApiCall]) -> tuple[str, ApiCall]:
    for call in calls:
        markup: dict[str, Any] = call.params.get("reply_markup") or {}
        for row in markup.get("inline_keyboard", []):
            for button in row:
                if button["callback_data"].startswith(f"jr:{JournalVerb.WRITE}:"):
                    return button["callback_data"], call
    raise AssertionError(f"no write button in {calls}")


async def _record(tg: LocalBot) -> None:
    await tg.say(FARMER, "привіт")
    data, card = _write_button(await tg.say(FARMER, SPRAYED))
    requests(await tg.press(FARMER, data, message_id(card)))


async def test_pending_lists_the_field_by_its_name(tg: LocalBot, catalog: Catalog) -> None:
    await _record(tg)
    text = _texts(await tg.say(OPERATOR, "/pending"))
    assert catalog.text("uk", "terms.kind_field") in text
    assert "Північне" in text
    assert "північному" not in text.replace(SPRAYED, "")


async def test_the_journal_names_the_pending_field(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await _record(tg)
    text = _texts(await tg.say(FARMER, "покажи журнал"))
    shown = catalog.text("uk", "reports.field_unconfirmed", field="Північне")
    items = [line for line in text.splitlines() if line.startswith("• ")]
    assert len(items) == 1 and shown in items[0], text
    assert catalog.text("uk", "reports.no_field") not in text


async def test_plan_vs_fact_names_the_pending_field(tg: LocalBot, catalog: Catalog) -> None:
    await _record(tg)
    text = _texts(await tg.say(FARMER, "план/факт за тиждень"))
    shown = catalog.text("uk", "reports.field_unconfirmed", field="Північне")
    assert shown in text, text
    assert catalog.text("uk", "reports.no_field") not in text


async def test_planned_work_names_the_pending_field(tg: LocalBot, catalog: Catalog) -> None:
    await tg.say(FARMER, "привіт")
    planned = "заплануй обприскування на східному полі завтра"
    data, card = _write_button(await tg.say(FARMER, planned))
    requests(await tg.press(FARMER, data, message_id(card)))
    text = _texts(await tg.say(FARMER, "що заплановано на тиждень?"))
    shown = catalog.text("uk", "reports.field_unconfirmed", field="Східне")
    assert shown in text, text
    assert catalog.text("uk", "reports.no_field") not in text


async def test_an_approved_field_is_called_by_its_name(tg: LocalBot, catalog: Catalog) -> None:
    await _record(tg)
    listed = _texts(await tg.say(OPERATOR, "/pending"))
    term_id = int(listed.split("#", 1)[1].split()[0])
    approved = _texts(await tg.say(OPERATOR, f"/approve {term_id}"))
    assert "«Північне»" in approved and "field:pivnichne" in approved
    requests(await tg.say(OPERATOR, "/apply_dict"))
    text = _texts(await tg.say(FARMER, "покажи журнал"))
    [item] = [line for line in text.splitlines() if line.startswith("• ")]
    # The new field of the farm is Північне, confirmed now: no mark, no «без поля».
    assert "Північне:" in item and "північному" not in item
    assert catalog.text("uk", "reports.field_unconfirmed", field="Північне") not in item
    # The farmer's own words still find it.
    card = _texts(await tg.say(FARMER, "полили на північному полі 10 мм вчора"))
    assert catalog.text("uk", "journal.line_field", field="Північне") in card
    assert "⏳" not in card
