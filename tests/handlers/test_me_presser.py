"""The /me card's buttons check the presser (issue 24 point 2): the card is only
ever sent to its owner's private chat, so a press anywhere else (a group, a
forwarded or forged card) is someone else's card: a pop-up, nobody's profile
edited, the pressed message left as it is."""

from __future__ import annotations

import pytest

from bot.keyboards.me import MeForgetTalkCD, MeLanguageCD, MeLevelCD, MeNameCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.factory import Core
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, message_id, requests, user_row
from tests.handlers.test_me_buttons import _summary

GROUP = -1001234567890
NEIGHBOUR = 4242


async def _group_message(tg: LocalBot) -> ApiCall:
    """A message of Stepan's in the group, the one the buttons are pressed under."""
    fields = tg.telegram.text_fields("привіт")
    calls = await tg.feed(tg.telegram.message_update(FARMER, fields, chat_id=GROUP))
    [sent] = [call for call in calls if call.method == "sendMessage"]
    return sent


async def _press(tg: LocalBot, user: int, data: str, pressed: ApiCall) -> list[ApiCall]:
    update = tg.telegram.callback_update(
        user, data, message_id=message_id(pressed), chat_id=GROUP, first_name="Сусід"
    )
    return await tg.feed(update)


def _popup(calls: list[ApiCall], text: str) -> list[tuple[str, dict[str, object]]]:
    return [
        (
            "answerCallbackQuery",
            {"callback_query_id": calls[0].params["callback_query_id"], "text": text},
        )
    ]


@pytest.mark.parametrize("presser", [NEIGHBOUR, FARMER])
@pytest.mark.parametrize(
    "data",
    [
        MeLanguageCD(language="en").pack(),
        MeLevelCD(level="expert").pack(),
        MeNameCD().pack(),
    ],
)
async def test_a_me_button_pressed_in_a_group_edits_nothing(
    tg: LocalBot, core: Core, catalog: Catalog, presser: int, data: str
) -> None:
    await tg.say(FARMER, "привіт")
    await tg.say(NEIGHBOUR, "привіт")
    pressed = await _group_message(tg)
    before = tg.telegram.message(GROUP, message_id(pressed))

    calls = await _press(tg, presser, data, pressed)

    assert requests(calls) == _popup(calls, catalog.text("uk", "me.not_yours"))
    assert tg.telegram.message(GROUP, message_id(pressed)) == before
    for user in (FARMER, NEIGHBOUR):
        row = await user_row(core, user)
        assert row is not None
        assert (row.preferred_language, row.expertise_level) == ("uk", "novice")
    # No name is waited for: the presser's next message is an ordinary one.
    [reply] = await tg.say(presser, "Хтось Інший")
    assert reply.text != catalog.text("uk", "me.name_set", name="Хтось Інший")
    row = await user_row(core, presser)
    assert row is not None and row.name != "Хтось Інший"


async def test_a_summary_button_pressed_in_a_group_deletes_nothing(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    summary = await _summary(core, f"tg:{FARMER}", 12, "12.05: обприскування кукурудзи")
    pressed = await _group_message(tg)

    calls = await _press(tg, FARMER, MeForgetTalkCD(summary=summary).pack(), pressed)

    assert requests(calls) == _popup(calls, catalog.text("uk", "me.not_yours"))
    left = await core.pipeline.recall.conversations.window(f"tg:{FARMER}")  # type: ignore[union-attr]
    assert [view.id for view in left] == [summary]
