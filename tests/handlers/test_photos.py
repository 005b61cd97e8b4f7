"""A picture through the dispatcher: its caption is answered as a message (with what
Stepan cannot see said), a bare picture gets the offer to describe it."""

from __future__ import annotations

from bot.local_session import LocalBot
from pipeline.i18n import Catalog
from tests.handlers.conftest import FARMER, requests

PHOTO = [{"file_id": "p1", "file_unique_id": "u1", "width": 640, "height": 480}]


async def test_a_captioned_photo_is_answered_as_its_caption(tg: LocalBot, catalog: Catalog) -> None:
    update = tg.telegram.message_update(
        FARMER, {"photo": PHOTO, "caption": "яка норма висіву соняшнику?"}
    )
    sent = requests(await tg.feed(update))
    assert [method for method, _ in sent] == ["sendMessage"]
    text = sent[0][1]["text"]
    # The caption's answer from the knowledge base, then the line about the picture.
    assert text.startswith("Соняшник — норма висіву") and "тис. насінин/га" in text
    assert text.endswith(catalog.text("uk", "agronomy.photo_note"))


async def test_a_bare_photo_asks_for_words(tg: LocalBot, catalog: Catalog) -> None:
    update = tg.telegram.message_update(FARMER, {"photo": PHOTO})
    sent = requests(await tg.feed(update))
    assert sent == [
        ("sendMessage", {"chat_id": FARMER, "text": catalog.text("uk", "agronomy.photo_only")})
    ]
