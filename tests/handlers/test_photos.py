"""A picture through the dispatcher: its caption is answered as a message (with what
Stepan cannot see said and the agronomist offered), a bare picture gets the offer
directly, and the operators get the picture with the card."""

from __future__ import annotations

from typing import Any

from bot.keyboards.pipeline import AgronomistCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import AgronomistQuestionRow
from pipeline.actions import HandoffChoice
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, OPERATOR, requests

PHOTO = [
    {"file_id": "p1", "file_unique_id": "u1", "width": 320, "height": 240},
    {"file_id": "p2", "file_unique_id": "u2", "width": 1280, "height": 960},
]


async def test_a_captioned_photo_is_answered_as_its_caption(tg: LocalBot, catalog: Catalog) -> None:
    update = tg.telegram.message_update(
        FARMER, {"photo": PHOTO, "caption": "яка норма висіву соняшнику?"}
    )
    sent = requests(await tg.feed(update))
    assert [method for method, _ in sent] == ["sendMessage"]
    text = sent[0][1]["text"]
    # The caption's answer from the knowledge base, then the line about the picture,
    # which offers the agronomist: Stepan cannot judge the picture itself.
    assert text.startswith("Соняшник — норма висіву") and "тис. насінин/га" in text
    assert text.endswith(catalog.text("uk", "agronomy.photo_note_offer"))
    assert _agronomist_button(sent[0][1]).choice == HandoffChoice.YES


async def test_a_bare_photo_gets_the_agronomist_offer_directly(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    # The picture as Telegram holds it: the bot can send it on by its file id.
    stored = tg.telegram.register_file(b"\x89PNG picture", kind="photos")
    sizes = [PHOTO[0], {**stored.as_dict(), "width": 1280, "height": 960}]
    update = tg.telegram.message_update(FARMER, {"photo": sizes})
    [(method, params)] = requests(await tg.feed(update))
    assert method == "sendMessage"
    assert params["text"] == catalog.text("uk", "agronomy.photo_offer")
    button = _agronomist_button(params)

    # On yes the operators get the picture itself (its largest size), then the card.
    calls = requests(await tg.press(FARMER, button.pack(), 1))

    to_operator = [(m, p) for m, p in calls if p.get("chat_id") == OPERATOR]
    assert [m for m, _ in to_operator] == ["sendPhoto", "sendMessage"]
    assert to_operator[0][1]["photo"] == stored.file_id
    card = to_operator[1][1]["text"]
    assert f"#{button.question}" in card
    assert catalog.text("uk", "agronomist.photo_question") in card
    async with core.db.read() as session:
        row = await session.get(AgronomistQuestionRow, button.question)
    assert row is not None and (row.status, row.photo_file_id) == ("pending", stored.file_id)


def _agronomist_button(params: dict[str, Any]) -> AgronomistCD:
    rows = params["reply_markup"]["inline_keyboard"]
    [data] = [
        b["callback_data"] for row in rows for b in row if b["callback_data"].startswith("ag")
    ]
    return AgronomistCD.unpack(data)


async def test_the_agronomist_card_of_a_photo_names_the_farm_region(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    region = core.regions.read("Полтавська область")
    assert region is not None
    assert await core.regions.set(f"tg:{FARMER}", region)
    stored = tg.telegram.register_file(b"\x89PNG picture", kind="photos")
    update = tg.telegram.message_update(
        FARMER, {"photo": [{**stored.as_dict(), "width": 1280, "height": 960}]}
    )
    [(_, params)] = requests(await tg.feed(update))
    button = _agronomist_button(params)

    calls = requests(await tg.press(FARMER, button.pack(), 1))

    [card] = [p["text"] for m, p in calls if p.get("chat_id") == OPERATOR and m == "sendMessage"]
    assert catalog.text("uk", "agronomist.context_region", region=region.id) in card
