"""The same update delivered twice (Telegram's redelivery, a webhook retried, a
replay another instance already won): one reply and one side effect, for a message,
a journal card, its button, and /token. Updates go through the real dispatcher with
the inbox middleware, as in `stepan run`."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiogram.methods import SendMessage
from aiogram.types import Update
from sqlalchemy import func, select

from bot.keyboards.pipeline import JournalCD
from bot.local.session import ApiCall, LocalBot
from bot.transport.inbox import Inbox, Replayer
from bot.transport.serving import build_deferred, build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core
from db.models import (
    FarmTokenRow,
    InteractionRow,
    OperationDraftRow,
    OperationRow,
    UpdateInboxRow,
)
from pipeline.actions import JournalVerb
from pipeline.types import Incoming, Reply
from tests.handlers.conftest import FARMER, OPERATOR, message_id, user_row


@pytest.fixture
def inboxed(core: Core) -> tuple[LocalBot, Inbox]:
    dispatcher = build_dispatcher(core)
    inbox = build_inbox(core, dispatcher)
    return LocalBot(dispatcher), inbox


async def feed_twice(tg: LocalBot, update_id: int, raw: dict[str, Any]) -> list[ApiCall]:
    """Feed one update twice, as Telegram would redeliver it; the calls made."""
    since = len(tg.session.calls)
    for _ in range(2):
        update = Update.model_validate({"update_id": update_id, **raw}, context={"bot": tg.bot})
        await tg.dispatcher.feed_update(tg.bot, update)
    return tg.session.since(since)


async def count(core: Core, model: type[Any]) -> int:
    async with core.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


def say(tg: LocalBot, user: int, text: str) -> dict[str, Any]:
    return tg.telegram.message_update(user, tg.telegram.text_fields(text), first_name="Оксана")


async def test_a_message_delivered_twice_is_answered_and_counted_once(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    tg, _ = inboxed
    calls = await feed_twice(tg, 900, say(tg, FARMER, "привіт"))
    assert [call.method for call in calls] == ["sendMessage"]
    row = await user_row(core, FARMER)
    assert row is not None and row.interaction_count == 1
    assert await count(core, InteractionRow) == 1
    async with core.db.read() as session:
        inbox_row = await session.get(UpdateInboxRow, 900)
    assert inbox_row is not None
    assert (inbox_row.status, inbox_row.outcome, inbox_row.payload) == ("done", "ok", None)


async def test_a_card_and_its_button_delivered_twice_write_once(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    tg, _ = inboxed
    cards = await feed_twice(tg, 901, say(tg, FARMER, "запиши полив 20 мм на полі 3"))
    [card] = [call for call in cards if call.method == "sendMessage"]
    assert await count(core, OperationDraftRow) == 1
    draft = JournalCD.unpack(card.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"])
    write = JournalCD(verb=JournalVerb.WRITE, draft=draft.draft).pack()
    press = tg.telegram.callback_update(FARMER, write, message_id=message_id(card))
    calls = await feed_twice(tg, 902, press)
    assert [call.method for call in calls] == ["answerCallbackQuery", "editMessageText"]
    assert all(call.ok for call in calls), [call.error for call in calls]
    assert await count(core, OperationRow) == 1


async def test_token_delivered_twice_issues_one_token(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    tg, _ = inboxed
    await tg.say(OPERATOR, "привіт")  # an operator with a farm
    calls = await feed_twice(tg, 903, say(tg, OPERATOR, "/token"))
    assert [call.method for call in calls] == ["sendMessage"]
    assert "stp_" in (calls[0].text or "")
    assert await count(core, FarmTokenRow) == 1


async def test_a_replayed_update_whose_handler_died_is_counted_once(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    """The handler recorded the interaction and the process died before the inbox row
    was marked done: the replay answers (the reply may have been lost) without
    counting the message again."""
    tg, inbox = inboxed
    await tg.feed({"update_id": 904, **say(tg, FARMER, "привіт")})
    async with core.db.write() as session:
        row = await session.get(UpdateInboxRow, 904)
        assert row is not None
        # As a dead instance leaves it: still held, the lease run out.
        row.status, row.claimed_by, row.claimed_until = "handling", "dead:1", None
    calls = await feed_twice(tg, 904, say(tg, FARMER, "привіт"))
    assert [call.method for call in calls] == ["sendMessage"]
    user = await user_row(core, FARMER)
    assert user is not None and user.interaction_count == 1
    assert await count(core, InteractionRow) == 1
    assert inbox.held == 0


async def test_a_held_update_is_not_taken_while_its_lease_runs(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    tg, _ = inboxed
    other = Inbox(core.db, "other:2", timedelta(seconds=60))
    update = Update.model_validate({"update_id": 905, **say(tg, FARMER, "привіт")})
    assert await other.claim(update)  # another instance is handling it right now
    since = len(tg.session.calls)
    await tg.dispatcher.feed_update(tg.bot, update.model_copy())
    assert tg.session.since(since) == []
    assert await user_row(core, FARMER) is None


async def test_a_reply_kept_for_flood_control_marks_its_update_done(core: Core) -> None:
    """As `stepan run` wires them (bot/cli/run.py), the inbox and the flood-control outbox
    claim as one owner: keeping a reply marks its update done, so a crash during the
    wait replays the reply (bot/delivery/deferred.py), never the update."""
    deferred = build_deferred(core)
    inbox = build_inbox(core, build_dispatcher(core), deferred=deferred)
    tg = LocalBot(build_dispatcher(core))
    raw = say(tg, FARMER, "привіт")
    await inbox.store([Update.model_validate({"update_id": 77, **raw})])

    kept = await deferred.keep(SendMessage(chat_id=FARMER, text="Привіт!"), 30, 77)

    assert kept is not None
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 77)
    assert row is not None and (row.status, row.outcome) == ("done", "deferred")
    # The handler then returns and the inbox marks the update handled: the outcome
    # says what happened to it, so "deferred" stays.
    await inbox.finish(77, "ok")
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 77)
    assert row is not None and (row.status, row.outcome) == ("done", "deferred")


#: A reply in three parts (each near Telegram's 4,096-character limit but the last).
LONG = ("а" * 4000, "б" * 4000, "в" * 100)


@pytest.fixture
def long_reply(core: Core, monkeypatch: pytest.MonkeyPatch) -> None:
    async def answer(incoming: Incoming, *, fresh: bool = False) -> Reply:
        return Reply("\n\n".join(LONG))

    monkeypatch.setattr(core.pipeline, "handle_message", answer)


async def test_a_long_reply_records_each_part_but_the_last(
    inboxed: tuple[LocalBot, Inbox], core: Core, long_reply: None
) -> None:
    tg, _ = inboxed
    calls = await tg.feed({"update_id": 905, **say(tg, FARMER, "розкажи все")})
    assert [call.text for call in calls] == list(LONG)
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 905)
    # The last part needs no record of its own: the update is done.
    assert row is not None and (row.status, row.replies_sent) == ("done", 2)


async def test_a_replay_sends_only_the_parts_telegram_had_not_taken(
    inboxed: tuple[LocalBot, Inbox], core: Core, long_reply: None
) -> None:
    """The process died after Telegram took the first part of three: the replay
    sends the second and the third, not the first again."""
    tg, inbox = inboxed
    async with core.db.write() as session:
        session.add(
            UpdateInboxRow(
                update_id=906, payload="{}", status="handling", claimed_by="dead:1",
                claimed_until=None, attempts=1, received_at=datetime.now(UTC), replies_sent=1,
            )
        )  # fmt: skip
    calls = await tg.feed({"update_id": 906, **say(tg, FARMER, "розкажи все")})
    assert [call.text for call in calls] == list(LONG[1:])
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 906)
    assert row is not None and (row.status, row.outcome) == ("done", "ok")
    assert inbox.held == 0


async def test_a_one_part_reply_records_no_progress(
    inboxed: tuple[LocalBot, Inbox], core: Core
) -> None:
    tg, _ = inboxed
    await tg.feed({"update_id": 907, **say(tg, FARMER, "привіт")})
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 907)
    assert row is not None and (row.status, row.replies_sent) == ("done", 0)


@pytest.mark.parametrize(
    "payload",
    ['{"update_id": 908, "message": "привіт"}', "not json", ""],
    ids=["unknown-shape", "not-json", "blank"],
)
async def test_a_stored_update_that_cannot_be_read_is_given_up_not_replayed_forever(
    inboxed: tuple[LocalBot, Inbox], core: Core, payload: str
) -> None:
    """A shape this aiogram cannot read (a newer Bot API's) used to fail every sweep,
    on every instance, with a traceback each time, and never count an attempt."""
    tg, inbox = inboxed
    async with core.db.write() as session:
        session.add(
            UpdateInboxRow(
                update_id=908, payload=payload, status="handling", claimed_by="dead:1",
                claimed_until=None, attempts=1, received_at=datetime.now(UTC),
            )
        )  # fmt: skip
    replayer = Replayer(inbox, tg.dispatcher, tg.bot)
    assert await replayer.sweep() == 1
    await asyncio.gather(*replayer._tasks)
    async with core.db.read() as session:
        row = await session.get(UpdateInboxRow, 908)
    assert row is not None and (row.status, row.outcome) == ("done", "poison")
    assert await replayer.sweep() == 0
    assert tg.session.calls == [] and inbox.held == 0


async def test_concurrent_stores_of_one_update_make_it_new_once(
    core: Core, inboxed: tuple[LocalBot, Inbox]
) -> None:
    # A webhook retry racing its first try: both stores go in one group-committed
    # transaction (db/group_commit.py), and only the first may handle the update.
    tg, inbox = inboxed
    raw = {"update_id": 4242, **say(tg, FARMER, "привіт")}
    other = {"update_id": 4243, **say(tg, FARMER, "дякую")}
    results = await asyncio.gather(
        inbox.store_raw(4242, raw), inbox.store_raw(4242, raw), inbox.store_raw(4243, other)
    )
    assert sorted(results[:2]) == [False, True]
    assert results[2] is True
    assert await count(core, UpdateInboxRow) == 2
