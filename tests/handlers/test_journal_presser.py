"""A journal card in a group chat: the presser is checked before the card is touched.
Another member's press gets a pop-up and leaves the card for its owner, who can
still confirm it. A callback from a chat whose message is not Stepan's is refused;
«хто я» in a group posts nothing personal there."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.keyboards.me import MeLanguageCD
from bot.keyboards.pipeline import JournalCD, StyleCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from db.models import OperationDraftRow, OperationRow
from pipeline.actions import JournalVerb
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, message_id, requests, user_row

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


async def test_a_forged_chat_gets_nothing_posted(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """A callback naming a chat whose message Stepan cannot read (another farmer's
    private chat, a group): a pop-up to the presser, no message into that chat, no
    profile changed (issue 29 point 5: a /me card was put into another user's chat)."""
    await tg.say(FARMER, "привіт")
    await tg.say(NEIGHBOUR, "привіт")
    expired = catalog.text("uk", "actions.expired")
    for data in (
        StyleCD(style="detailed").pack(),
        MeLanguageCD(language="en").pack(),
        JournalCD(verb=JournalVerb.WRITE, draft=1).pack(),
        "zz:forged:data",
    ):
        for chat in (NEIGHBOUR, GROUP):
            update = tg.telegram.callback_update(FARMER, data, message_id=999_999, chat_id=chat)
            calls = await tg.feed(update)
            assert requests(calls) == [
                (
                    "answerCallbackQuery",
                    {"callback_query_id": calls[0].params["callback_query_id"], "text": expired},
                )
            ], data
    row = await user_row(core, FARMER)
    assert row is not None and row.preferred_style != "detailed" and row.preferred_language != "en"


async def test_who_am_i_in_a_group_posts_nothing_personal(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт", first_name="Олеся")
    for text in ("хто я", "Хто я?"):
        fields = tg.telegram.text_fields(text)
        calls = await tg.feed(
            tg.telegram.message_update(FARMER, fields, chat_id=GROUP, first_name="Олеся")
        )
        [sent] = [call for call in calls if call.method == "sendMessage"]
        assert sent.params["chat_id"] == GROUP
        assert sent.params["text"] == catalog.text("uk", "faults.private_only_ask")
        assert "Олеся" not in sent.params["text"]
    [private] = [c for c in await tg.say(FARMER, "хто я") if c.method == "sendMessage"]
    assert "Рівень" in private.params["text"]  # in the private chat: the answer itself
