"""The recall features through the bot's own handlers (a local Bot API): /me lists
the conversation summaries, and the 🔄 button under a remembered answer asks the
question again through the deep path."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.keyboards.pipeline import RefreshCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import ConversationSummaryRow
from pipeline.language.catalog import Catalog
from tests.handlers.conftest import FARMER, message_id


def buttons(call: object) -> list[str]:
    markup = call.params.get("reply_markup") or {}  # type: ignore[attr-defined]
    return [b["callback_data"] for row in markup.get("inline_keyboard", []) for b in row]


async def test_me_lists_the_conversation_summaries(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [empty] = await tg.say(FARMER, "/me")
    assert catalog.text("uk", "recall.me_none") in empty.params["text"]

    end = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
    async with core.db.write() as session:
        for n in range(7):
            session.add(
                ConversationSummaryRow(
                    key=f"k{n}",
                    user_id=f"tg:{FARMER}",
                    period_start=end.replace(day=n + 1),
                    period_end=end.replace(day=n + 1),
                    text=f"Розмова {n}.\nТеми: дані датчиків.\nПоля: Поле {n}.",
                    intents=["iot"],
                    message_count=2,
                    source="extractive",
                )
            )
    [card] = await tg.say(FARMER, "/me")
    text = card.params["text"]
    assert catalog.text("uk", "recall.me_header") in text
    # The newest five, newest first; the other two are counted.
    assert text.index("Розмова 6.") < text.index("Розмова 2.")
    assert "Розмова 1." not in text and "• Розмова 6.\n  Теми: дані датчиків." in text
    assert catalog.text("uk", "recall.me_more", count=2) in text
    # Nobody else's summaries.
    [other] = await tg.say(FARMER + 1, "/me")
    assert "Розмова" not in other.params["text"]


async def test_the_refresh_button_asks_again_through_the_deep_path(
    tg: LocalBot, catalog: Catalog
) -> None:
    await tg.say(FARMER, "привіт")
    [first] = await tg.say(FARMER, "яка вологість на полі 2")
    [again] = await tg.say(FARMER, "а яка вологість на полі 2?")
    refresh = [data for data in buttons(again) if data.startswith("rf:")]
    assert len(refresh) == 1 and again.params["text"].endswith(first.params["text"])
    assert again.params["text"] != first.params["text"]  # marked as remembered

    calls = await tg.press(FARMER, refresh[0], message_id(again))
    [fresh] = [c for c in calls if c.method == "sendMessage"]
    assert fresh.params["text"] == first.params["text"]
    # A deep answer again: the rating buttons are under it, not a refresh.
    assert not any(data.startswith("rf:") for data in buttons(fresh))
    assert RefreshCD.unpack(refresh[0]).trace
