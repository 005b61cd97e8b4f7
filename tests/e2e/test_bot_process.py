"""Stepan as a real process (``python -m bot run``) against the fake Bot API over HTTP.

One bot process serves the whole module (start-up costs seconds); every test talks
as its own Telegram user, so the tests do not depend on each other's order.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from bot.commands import help_text
from bot.keyboards.pipeline import OnboardingCD, StyleCD
from pipeline.actions import OnboardingChoice
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from tests.e2e.conftest import BotProcess, StartBot
from tests.fakes.bot_api import FakeBotAPI, SentCall

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

FLOOD = "Too Many Requests: retry after 1"
#: Generous: a reply normally takes milliseconds, but CI machines stall.
REPLY_TIMEOUT = 20.0
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


def _variants(catalog: Catalog, lang: str, key: str, **params: str) -> set[str]:
    return {catalog.variant(lang, key, seed, **params) for seed in range(12)}  # type: ignore[arg-type]


def _novice(catalog: Catalog, lang: str, key: str, **params: str) -> set[str]:
    """The variants of a light template as a new user (a novice, issue 11 point 2)
    reads them: each followed by what its terms mean."""
    why = catalog.text(lang, "level.novice.why.light." + key.rsplit(".", 1)[-1])  # type: ignore[arg-type]
    return {f"{text}\n\n{why}" for text in _variants(catalog, lang, key, **params)}


def _attempts(api: FakeBotAPI, method: str, chat_id: int) -> list[SentCall]:
    return [call for call in api.sent if call.method == method and call.chat_id == chat_id]


def _buttons(call: SentCall) -> list[dict[str, str]]:
    markup = call.params.get("reply_markup") or {}
    return [button for row in markup.get("inline_keyboard", []) for button in row]


async def _reply(api: FakeBotAPI, chat_id: int, n: int = 1) -> SentCall:
    """The ``n``-th successful sendMessage to ``chat_id`` (1-based)."""
    calls = await api.wait_for_count("sendMessage", n, chat_id=chat_id, timeout=REPLY_TIMEOUT)
    return calls[n - 1]


async def test_greeting_is_personal_and_a_style_button_works(
    fake_api: FakeBotAPI, bot_process: BotProcess, catalog: Catalog
) -> None:
    api, user = fake_api, 1001
    api.push_message(user, "привіт", first_name="Олена")
    first = await _reply(api, user)

    assert "Олено" in first.params["text"]
    buttons = _buttons(first)
    assert buttons, "a first greeting offers buttons"
    # Typed callback data: each button unpacks as an onboarding choice.
    assert [OnboardingCD.unpack(b["callback_data"]).choice for b in buttons] == [
        OnboardingChoice.START,
        OnboardingChoice.LATER,
    ]
    assert "parse_mode" not in first.params

    # A later greeting: still personal, no buttons.
    api.push_message(user, "привіт", first_name="Олена")
    second = await _reply(api, user, 2)
    assert "Олено" in second.params["text"]
    assert _buttons(second) == []

    # Press "brief" under the first reply.
    since = len(api.sent)
    api.push_callback(user, StyleCD(style="brief").pack(), message_id=first.result["message_id"])
    answered = await api.wait_for(
        lambda c: c.method == "answerCallbackQuery", timeout=REPLY_TIMEOUT, since=since
    )
    assert answered.ok, answered.description  # the fake only accepts an open query's id
    confirm = await _reply(api, user, 3)
    adverb = catalog.text("uk", "actions.adverb.brief")
    assert confirm.params["text"] == catalog.text("uk", "actions.style_set", style=adverb)
    row = bot_process.user_row(user)
    assert row is not None
    assert row["preferred_style"] == "brief"

    # The chosen style shows in the next reply.
    api.push_message(user, "привіт", first_name="Олена")
    third = await _reply(api, user, 4)
    assert third.params["text"] in _novice(catalog, "uk", "light.brief.greeting", name="Олено")


async def test_forged_button_data_is_refused_politely(
    fake_api: FakeBotAPI, bot_process: BotProcess, catalog: Catalog
) -> None:
    api, user = fake_api, 1002
    api.push_message(user, "дякую", first_name="Петро")
    reply = await _reply(api, user)

    # A style the bot does not know, and data of no kind it sends (an older version's).
    api.push_callback(user, "st:evil", message_id=reply.result["message_id"])
    api.push_callback(user, "p:style:brief", message_id=reply.result["message_id"])
    refused = [await _reply(api, user, n) for n in (2, 3)]

    assert [r.params["text"] for r in refused] == [catalog.text("uk", "actions.expired")] * 2
    row = bot_process.user_row(user)
    assert row is not None
    assert row["preferred_style"] != "evil"


async def test_start_and_help(
    fake_api: FakeBotAPI, bot_process: BotProcess, catalog: Catalog
) -> None:
    api, user = fake_api, 1003
    api.push_message(user, "/start", first_name="Марія")
    start = await _reply(api, user)
    assert "Маріє" in start.params["text"]

    api.push_message(user, "/help", first_name="Марія")
    help_reply = await _reply(api, user, 2)
    # The intro, what Stepan can do, then the commands a farmer may use (the registry).
    intro = "\n\n".join(
        [catalog.text("uk", "light.help"), catalog.text("uk", "level.novice.why.light.help")]
    )
    expected = help_text(Texts(catalog, "uk"), intro, operator=False)
    assert help_reply.params["text"] == expected

    # The command menu was set for both languages at start-up.
    assert {c["command"] for c in api.commands()} >= {"start", "help"}
    assert {c["command"] for c in api.commands(language_code="en")} >= {"start", "help"}


async def test_english_hello_gets_an_english_reply(
    fake_api: FakeBotAPI, bot_process: BotProcess
) -> None:
    api, user = fake_api, 1004
    # A Ukrainian-language client: the message itself decides the reply language.
    api.push_message(user, "hello", first_name="John", language_code="uk")
    reply = await _reply(api, user)

    text = reply.params["text"]
    assert "John" in text
    assert not _CYRILLIC.search(text), text
    assert not any(_CYRILLIC.search(b["text"]) for b in _buttons(reply))


async def test_twenty_messages_at_once_get_twenty_replies_in_order(
    fake_api: FakeBotAPI, bot_process: BotProcess
) -> None:
    api, user = fake_api, 1005
    # Known user first, so none of the 20 is a first contact.
    api.push_message(user, "дякую", first_name="Оксана")
    await _reply(api, user)
    before = bot_process.interaction_count(user)

    # All 20 are queued before the bot can read any of them (no await in between).
    update_ids = [api.push_message(user, "хто я", first_name="Оксана") for _ in range(20)]
    calls = await api.wait_for_count("sendMessage", 21, chat_id=user, timeout=REPLY_TIMEOUT)
    assert len({api.update_delivered_at(u) for u in update_ids}) == 1, "one getUpdates batch"

    replies = [call.params["text"] for call in calls[1:]]
    # "хто я" reports the interaction count seen when the message was handled: in
    # order and one at a time, the counts are consecutive.
    counts = [int(m.group(1)) for m in (re.search(r"(\d+) раз", t) for t in replies) if m]
    assert len(counts) == 20, replies
    assert counts == list(range(before, before + 20))

    await asyncio.sleep(0.3)  # nothing more may come
    assert len(api.sent_messages(user)) == 21
    assert bot_process.interaction_count(user) == before + 20
    (count,) = bot_process.query(
        "SELECT COUNT(*) FROM interactions WHERE user_id = ? AND text = ?", f"tg:{user}", "хто я"
    )[0]
    assert count == 20


async def test_non_text_messages_get_the_polite_line(
    fake_api: FakeBotAPI, bot_process: BotProcess, catalog: Catalog
) -> None:
    api, user, english = fake_api, 1006, 1007
    api.push_photo(user)
    api.push_sticker(user)
    api.push_voice(user)
    api.push_location(user, 49.84, 24.03)
    api.push_sticker(english, language_code="en")

    replies = await api.wait_for_count("sendMessage", 4, chat_id=user, timeout=REPLY_TIMEOUT)
    # A photo goes to the pipeline (its caption would be the question, docs/knowledge.md);
    # without one Stepan asks for words and offers the agronomist. A voice message,
    # with no transcription configured, says so (docs/voice.md). A location is asked
    # about: the farm or which field (docs/weather.md). A sticker gets the polite line.
    point = "49,84° пн. ш., 24,03° сх. д."
    assert [c.params["text"] for c in replies] == [
        catalog.text("uk", "agronomy.photo_offer"),
        catalog.text("uk", "bot.non_text"),
        catalog.text("uk", "voice.off"),
        catalog.text("uk", "location.ask", point=point),
    ]
    assert [b["text"] for b in _buttons(replies[0])] == [catalog.text("uk", "agronomist.button")]
    assert [b["text"] for b in _buttons(replies[3])] == [catalog.text("uk", "location.farm_button")]
    (en_reply,) = await api.wait_for_count("sendMessage", 1, chat_id=english)
    assert en_reply.params["text"] == catalog.text("en", "bot.non_text")


async def test_flood_control_is_waited_out(
    fake_api: FakeBotAPI, bot_process: BotProcess, catalog: Catalog
) -> None:
    api, user = fake_api, 1008
    api.fail_next("sendMessage", error_code=429, description=FLOOD, retry_after=1, chat_id=user)
    api.push_message(user, "дякую", first_name="Тарас")

    reply = await _reply(api, user)

    assert reply.params["text"] in _novice(catalog, "uk", "light.thanks", name="Тарасе")
    assert [c.error_code for c in _attempts(api, "sendMessage", user)] == [429, None]
    assert bot_process.running


async def test_blocked_user_is_marked_inactive_and_others_are_served(
    fake_api: FakeBotAPI, bot_process: BotProcess
) -> None:
    api, blocked, other = fake_api, 1009, 1010
    api.block_user(blocked)
    api.push_message(blocked, "дякую", first_name="Богдан")

    refused = await api.wait_for(
        lambda c: c.chat_id == blocked and c.error_code == 403, timeout=REPLY_TIMEOUT
    )
    assert refused.method == "sendMessage"
    row = await bot_process.wait_user(blocked, lambda r: not r["active"])
    assert row["interaction_count"] == 1

    # More from the blocked chat (text and non-text) must not break anything.
    api.push_message(blocked, "привіт", first_name="Богдан")
    api.push_sticker(blocked)
    api.push_message(other, "дякую", first_name="Ірина")

    reply = await _reply(api, other)
    assert "parse_mode" not in reply.params
    assert bot_process.running
    assert api.sent_messages(blocked) == []
    other_row = bot_process.user_row(other)
    assert other_row is not None
    assert other_row["active"]


@dataclass(frozen=True, slots=True)
class SigtermRun:
    exit_code: int
    stderr: str
    burst: int  #: messages in the burst
    taken: int  #: messages of the burst that getUpdates handed to the first process
    answered: int  #: replies to the burst sent before the process exited
    pending_after_exit: int  #: updates queued after exit and never fetched
    #: After a restart on the same database: replies to the burst, and interactions
    #: counted for its user (every message once, whatever the first process left).
    answered_after_restart: int
    counted_after_restart: int


@pytest_asyncio.fixture(loop_scope="module", scope="module", autouse=True)
async def _spare_bot(start_bot: StartBot) -> AsyncIterator[BotProcess]:
    """A second process with its own fake, for the SIGTERM scenario. Autouse and not
    awaited: it starts up in parallel with the module's main process."""
    async with FakeBotAPI() as api:
        bot = await start_bot(api, wait=False)
        yield bot
        await bot.stop()  # before its fake goes away


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def sigterm_run(_spare_bot: BotProcess, start_bot: StartBot) -> SigtermRun:
    """Serve a message, push a burst, SIGTERM while the burst is being answered, then
    start again on the same database."""
    bot, api = _spare_bot, _spare_bot.api
    await bot.wait_ready()
    api.push_message(77, "дякую", first_name="Ганна")
    await api.wait_for_count("sendMessage", 1, chat_id=77, timeout=REPLY_TIMEOUT)

    burst = [api.push_message(78, "хто я", first_name="Ганна") for _ in range(60)]
    await api.wait_for_count("sendMessage", 1, chat_id=78, timeout=REPLY_TIMEOUT)
    code = await bot.stop()

    api.push_message(77, "дякую", first_name="Ганна")
    await asyncio.sleep(0.2)
    taken = sum(api.update_delivered_at(u) is not None for u in burst)
    answered, pending = len(api.sent_messages(78)), api.pending_updates
    stderr = bot.stderr()

    # The next start replays what the first process gave back (claimed, not started)
    # and fetches what it never took.
    await start_bot(api, STEPAN_DATABASE_URL=f"sqlite+aiosqlite:///{bot.db_path}")
    await api.wait_for_count("sendMessage", len(burst), chat_id=78, timeout=4 * REPLY_TIMEOUT)
    await api.wait_for_count("sendMessage", 2, chat_id=77, timeout=REPLY_TIMEOUT)
    row = await bot.wait_user(78, lambda r: r["interaction_count"] >= len(burst))
    await asyncio.sleep(0.5)  # a duplicate, if there were one, would be sent by now
    return SigtermRun(
        exit_code=code,
        stderr=stderr,
        burst=len(burst),
        taken=taken,
        answered=answered,
        pending_after_exit=pending,
        answered_after_restart=len(api.sent_messages(78)),
        counted_after_restart=max(int(row["interaction_count"]), bot.interaction_count(78)),
    )


async def test_sigterm_stops_the_bot_cleanly(sigterm_run: SigtermRun) -> None:
    """Exit code 0 even mid-burst (the module's idle main process is checked the same
    way at teardown)."""
    assert sigterm_run.exit_code == 0, sigterm_run.stderr
    # It stopped polling: a message pushed after the exit stays queued.
    assert sigterm_run.pending_after_exit == 1


async def test_sigterm_answers_every_message_already_taken(sigterm_run: SigtermRun) -> None:
    """getUpdates already confirmed these messages, so Telegram will not send them
    again: the ones being handled finish before exit, the ones queued behind them are
    given back to the inbox (bot/transport/inbox.py) and the next start answers them. Every
    message of the burst is answered and counted exactly once."""
    run = sigterm_run
    assert run.taken > 1
    assert "Traceback" not in run.stderr, run.stderr
    assert 1 <= run.answered <= run.taken
    assert run.answered_after_restart == run.burst, (
        f"{run.taken} taken by the first process, {run.answered} answered before exit, "
        f"{run.answered_after_restart} of {run.burst} after the restart"
    )
    assert run.counted_after_restart == run.burst
