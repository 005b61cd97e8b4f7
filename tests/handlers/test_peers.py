"""Off-topic questions through the dispatcher: the offer with typed buttons, the
consent, and what the farmer sees with and without a peer on NATS."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from unittest.mock import ANY

import pytest
from pydantic import SecretStr
from sqlalchemy import select

from bot.config import Settings
from bot.keyboards.me import ForgetCD
from bot.keyboards.pipeline import HandoffCD
from bot.local.session import ApiCall, LocalBot
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from db.models import HandoffRow
from pipeline.actions import HandoffChoice
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook
from tests.conftest import make_settings
from tests.handlers.conftest import FARMER, keyboard, message_id, requests
from tests.integration.nats_harness import TestPeer, answering, isolated_directory, require_nats


def offer_of(calls: list[ApiCall]) -> tuple[ApiCall, HandoffCD, HandoffCD]:
    [sent] = calls
    rows = sent.params["reply_markup"]["inline_keyboard"]
    # A card's own buttons (another pest of the card) may stand above the offer's row.
    [row] = [r for r in rows if r[0]["callback_data"].startswith(HandoffCD.__prefix__ + ":")]
    yes, no = (HandoffCD.unpack(button["callback_data"]) for button in row)
    return sent, yes, no


async def stored(core: Core) -> list[tuple[str, bool | None, bool, str | None]]:
    async with core.db.read() as session:
        rows = (await session.execute(select(HandoffRow).order_by(HandoffRow.id))).scalars()
        return [(row.peer, row.consent, row.sent, row.outcome) for row in rows]


async def test_an_offtopic_question_gets_a_peer_and_two_buttons(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    calls = await tg.say(FARMER, "що їсти на сніданок?")
    sent, yes, no = offer_of(calls)
    names = {
        "peer": "Nutra",
        "handle": "@NutraChat_bot",
        "topic": core.pipeline.peers.directory.get("nutra").about["uk"],  # type: ignore[union-attr]
    }
    assert requests(calls) == [
        (
            "sendMessage",
            {
                "chat_id": FARMER,
                "text": catalog.text("uk", "peers.offer", **names),
                "reply_markup": keyboard(
                    [
                        (catalog.text("uk", "peers.yes", peer="Nutra"), yes.pack()),
                        (catalog.text("uk", "peers.no"), no.pack()),
                    ]
                ),
            },
        )
    ]
    assert "Передати питання Nutra?" in sent.params["text"]
    assert (yes.choice, no.choice) == (HandoffChoice.YES, HandoffChoice.NO)
    assert yes.handoff == no.handoff
    assert await stored(core) == [("nutra", None, False, None)]


async def test_no_sends_nothing_and_takes_the_buttons_away(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    sent, _, no = offer_of(await tg.say(FARMER, "що їсти на сніданок?"))
    calls = await tg.press(FARMER, no.pack(), message_id(sent))
    assert requests(calls) == [
        ("answerCallbackQuery", {"callback_query_id": ANY}),
        (
            "editMessageText",
            {"chat_id": FARMER, "message_id": message_id(sent), "text": sent.params["text"]},
        ),
        (
            "sendMessage",
            {"chat_id": FARMER, "text": catalog.text("uk", "peers.refused", peer="Nutra")},
        ),
    ]
    assert await stored(core) == [("nutra", False, False, "refused")]


async def test_yes_without_nats_gives_the_handle_and_a_link(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    sent, yes, _ = offer_of(await tg.say(FARMER, "що їсти на сніданок?"))
    calls = await tg.press(FARMER, yes.pack(), message_id(sent))
    names = {"peer": "Nutra", "handle": "@NutraChat_bot", "link": "https://t.me/NutraChat_bot"}
    expected = (
        catalog.text("uk", "peers.unreachable", **names)
        + "\n"
        + catalog.text("uk", "peers.direct", **names)
    )
    assert requests(calls)[-1] == ("sendMessage", {"chat_id": FARMER, "text": expected})
    assert await stored(core) == [("nutra", True, False, "offline")]


async def test_a_partly_agronomy_question_gets_stepans_part_and_the_offer(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    calls = await tg.say(FARMER, "як боротися з попелицею на пшениці і що їсти на сніданок?")
    sent, _, _ = offer_of(calls)
    text = sent.params["text"]
    own, offer = text.rsplit("\n\n", 1)[0], text
    # The card's other wheat pests stay a tap away above the offer's row.
    rows = sent.params["reply_markup"]["inline_keyboard"]
    assert rows[0][0]["callback_data"].startswith("ki:winter-wheat.pests:")
    # Stepan's own part is the knowledge base's card on wheat pests.
    assert own.startswith("Озима пшениця — шкідники") and "5–10 шт. на стебло" in own
    assert offer.endswith(
        catalog.text(
            "uk",
            "peers.offer_rest",
            peer="Nutra",
            handle="@NutraChat_bot",
            topic=core.pipeline.peers.directory.get("nutra").about["uk"],
        )
    )  # type: ignore[union-attr]
    async with core.db.read() as session:
        row = (await session.execute(select(HandoffRow))).scalar_one()
        assert (row.partial, row.question) == (True, "що їсти на сніданок?")


async def test_an_offtopic_question_nobody_takes_points_to_the_coordinator(
    tg: LocalBot, catalog: Catalog
) -> None:
    calls = await tg.say(FARMER, "порадь фільм на вечір")
    [(_, params)] = requests(calls)
    assert params["text"].endswith(
        catalog.text(
            "uk",
            "peers.ask_coordinator",
            peer="DAARWIZZ",
            handle="@DAARWIZZBot",
            topic=ANY,
        ).split("(")[0]
        + "(@DAARWIZZBot) підкаже, до кого звернутися."
    )
    assert "reply_markup" not in params


@pytest.mark.parametrize("data", ["ho:yes:999999", "ho:maybe:1", "ho:yes:x"])
async def test_forged_handoff_buttons_are_expired(
    tg: LocalBot, core: Core, catalog: Catalog, data: str
) -> None:
    [reply] = await tg.say(FARMER, "дякую")
    calls = await tg.press(FARMER, data, message_id(reply))
    assert requests(calls)[-1] == (
        "sendMessage",
        {"chat_id": FARMER, "text": catalog.text("uk", "actions.expired")},
    )
    assert await stored(core) == []


async def test_somebody_elses_offer_cannot_be_accepted(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    sent, yes, _ = offer_of(await tg.say(FARMER, "що їсти на сніданок?"))
    calls = await tg.press(FARMER + 1, yes.pack(), message_id(sent))
    assert requests(calls)[-1][1]["text"] == catalog.text("uk", "actions.expired")
    assert await stored(core) == [("nutra", None, False, None)]


async def test_forget_takes_a_pending_question_along(tg: LocalBot, core: Core) -> None:
    sent, yes, _ = offer_of(await tg.say(FARMER, "що їсти на сніданок?"))
    [confirm] = await tg.say(FARMER, "/forget")
    await tg.press(FARMER, ForgetCD(confirm=True).pack(), message_id(confirm))
    async with core.db.read() as session:
        row = (await session.execute(select(HandoffRow))).scalar_one()
        assert (row.user_id, row.question, row.peer) == (None, None, "nutra")
    # The offer's button no longer belongs to anybody.
    calls = await tg.press(FARMER, yes.pack(), message_id(sent))
    assert "не діє" in requests(calls)[-1][1]["text"]


# --------------------------------------------------------------------------- with NATS


@pytest.fixture
async def nats_core(sqlite_url: str, rules: Rulebook) -> AsyncIterator[Core]:
    url = await require_nats()
    base = make_settings(sqlite_url)
    stepan = base.stepan.model_copy(update={"nats_url": SecretStr(url)})
    settings = Settings(stepan=stepan, agx=base.agx)
    core = build_core(settings, rules=dataclasses.replace(rules, peers=isolated_directory()))
    await core.start_peers()
    assert core.peer_link is not None and await core.peer_link.wait_connected(10)
    try:
        yield core
    finally:
        await core.close()


async def test_yes_with_a_peer_on_nats_relays_its_answer(nats_core: Core, catalog: Catalog) -> None:
    tg = LocalBot(build_dispatcher(nats_core))
    subject = nats_core.pipeline.peers.directory.invoke_subject("nutra")  # type: ignore[union-attr]
    nutra = await TestPeer(require_url(nats_core), subject, answering("Омлет і овочі.")).start()
    try:
        sent, yes, _ = offer_of(
            await tg.say(FARMER, "Я Олена. Що їсти на сніданок?", first_name="Олена")
        )
        calls = await tg.press(FARMER, yes.pack(), message_id(sent), first_name="Олена")
    finally:
        await nutra.stop()
    expected = catalog.text(
        "uk", "peers.answer", peer="Nutra", handle="@NutraChat_bot", text="Омлет і овочі."
    )
    assert requests(calls)[-1] == ("sendMessage", {"chat_id": FARMER, "text": expected})
    [contract] = nutra.received
    assert "Олена" not in str(contract)
    assert await stored(nats_core) == [("nutra", True, True, "answered")]


def require_url(core: Core) -> str:
    assert core.settings.stepan.nats_url is not None
    return core.settings.stepan.nats_url.get_secret_value()


async def test_a_journal_card_keeps_its_buttons_and_the_peer_is_only_named(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    [card] = await tg.say(FARMER, "запиши полив 20 мм на полі 3. Що їсти на сніданок?")
    rows = card.params["reply_markup"]["inline_keyboard"]
    assert all(button["callback_data"].startswith("jr:") for button in rows[0])
    assert card.params["text"].endswith("@NutraChat_bot — https://t.me/NutraChat_bot")
    assert await stored(core) == []
