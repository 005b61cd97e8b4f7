"""A journal card in a group chat: the presser is checked before the card is touched.
Another member's press gets a pop-up and leaves the card for its owner, who can
still confirm it."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.keyboards.pipeline import JournalCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from db.models import OperationDraftRow, OperationRow
from pipeline.actions import JournalVerb
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, message_id, requests

GROUP = -1001234567890
NEIGHBOUR = 4242


async def _written(core: Core) -> int:
    async with core.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(OperationRow)) or 0)


async def _press(tg: LocalBot, user: int, data: str, card: ApiCall) -> list[ApiCall]:
    update = tg.telegram.callback_update(
        user, data, message_id=message_id(card), chat_id=GROUP, first_name="Сусід"
    )
    return await tg.feed(update)


async def test_another_members_press_leaves_the_card_for_its_owner(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    fields = tg.telegram.text_fields("запиши полив 20 мм на полі 3")
    calls = await tg.feed(tg.telegram.message_update(FARMER, fields, chat_id=GROUP))
    [card] = [call for call in calls if call.method == "sendMessage"]
    assert card.params["chat_id"] == GROUP
    first = card.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    write = JournalCD(verb=JournalVerb.WRITE, draft=JournalCD.unpack(first).draft).pack()

    pressed = await _press(tg, NEIGHBOUR, write, card)
    assert requests(pressed) == [
        (
            "answerCallbackQuery",
            {"callback_query_id": pressed[0].params["callback_query_id"],
             "text": catalog.text("uk", "journal.not_yours")},
        )
    ]  # fmt: skip
    kept = tg.telegram.message(GROUP, message_id(card))
    assert kept is not None and kept.get("reply_markup") == card.params["reply_markup"]
    assert await _written(core) == 0
    async with core.db.read() as session:
        draft = await session.scalar(select(OperationDraftRow))
        assert draft is not None and draft.status == "draft"

    confirmed = await _press(tg, FARMER, write, card)
    assert [call.method for call in confirmed] == ["answerCallbackQuery", "editMessageText"]
    assert await _written(core) == 1
