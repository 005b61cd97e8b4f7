"""The product's reference conversations (issue 16 point 7; docs/CONVERSATION.md):
a new farmer's first ten minutes and a new operator's first five, through the real
dispatcher and the fake Bot API, each reply compared with the catalog-rendered text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import pytest

from bot.commands import CAPABILITIES, help_buttons, help_list, help_text
from bot.keyboards.pipeline import OnboardingCD, StyleCD, keyboard
from pipeline.actions import JournalVerb, OnboardingChoice
from pipeline.language.texts import Texts
from pipeline.onboarding.flow import Step
from tests.conftest import make_settings
from tests.fakes.bot_api import SentCall
from tests.integration.bot_harness import Harness, running_bot
from tests.integration.test_onboarding_traps import _ask as ask
from tests.integration.test_onboarding_traps import _buttons as buttons
from tests.shared import catalog

FARMER, OPERATOR = 5101, 5201
CATALOG = catalog()


t = partial(CATALOG.text, "uk")


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    async with running_bot(settings) as harness:
        yield harness


async def press(harness: Harness, user: int, data: str, on: SentCall) -> SentCall:
    since = len(harness.api.sent)
    await harness.press(user, data, harness.message_id(on))
    return await harness.reply(user, since)


async def test_a_new_farmers_first_ten_minutes(harness: Harness) -> None:
    say = harness.say
    # 1. Greeting: who Stepan is, and an offer to get acquainted.
    hello = await say(FARMER, "привіт", first_name="Олена")
    # A new user is a novice until onboarding says otherwise: what an operation is.
    explained = t("level.novice.why.light.greeting_new")
    greeting = f"{t('light.greeting_new', name='Олено')}\n\n{explained}"
    assert hello.text == f"{greeting}\n\n{t('onboarding.offer')}"
    start = OnboardingCD(choice=OnboardingChoice.START).pack()
    assert buttons(hello) == [start, OnboardingCD(choice=OnboardingChoice.LATER).pack()]
    # 2. Onboarding, with one interruption: a real question is answered, onboarding waits.
    name_q = await press(harness, FARMER, start, hello)
    assert name_q.text == f"{t('onboarding.intro')}\n\n{ask(Step.NAME)}"
    assert (await say(FARMER, "Олена Петрівна")).text == ask(Step.FARM)
    answer = await say(FARMER, "коли сіяти соняшник?")
    assert (answer.text or "").startswith("Соняшник — строки сівби")
    assert (answer.text or "").endswith(t("onboarding.paused"))
    resume = OnboardingCD(choice=OnboardingChoice.RESUME).pack()
    assert buttons(answer)[-1] == resume
    back = await press(harness, FARMER, resume, answer)
    assert back.text == f"{t('onboarding.resumed')}\n\n{ask(Step.FARM)}"
    assert (await say(FARMER, "Зоря")).text == ask(Step.REGION)
    assert (await say(FARMER, "Полтавська")).text == ask(Step.FIELDS)
    assert (await say(FARMER, "Північне 40 га, Південне")).text == ask(Step.CROPS)
    assert (await say(FARMER, "пшениця, соняшник")).text == ask(Step.SENSORS)
    assert (await say(FARMER, "ні")).text == ask(Step.EXPERIENCE)
    level = await say(FARMER, "5 років")
    assert level.text == ask(Step.STYLE)
    brief = OnboardingCD(choice=OnboardingChoice.STYLE, style="brief").pack()
    assert (await press(harness, FARMER, brief, level)).text == t("onboarding.done")
    # 3. A question, now answered for the farm's zone (Полтавська: Лісостеп).
    sowing = await say(FARMER, "коли сіяти соняшник?")
    assert "Лісостеп" in (sowing.text or "") and t("onboarding.paused") not in (sowing.text or "")
    # 4. A work record: a card to confirm, then written.
    card = await say(FARMER, "запиши полив 20 мм на Північному вчора")
    assert (card.text or "").startswith(t("journal.card_one")) and "Північне" in (card.text or "")
    write = next(d for d in buttons(card) if d.startswith(f"jr:{JournalVerb.WRITE}:"))
    written = await press(harness, FARMER, write, card)
    assert t("journal.written") in (written.text or "")
    # 5. A report: a file with one line about it.
    since = len(harness.api.sent)
    harness.api.push_message(FARMER, "звіт в Excel за тиждень")
    report = await harness.api.wait_for(
        lambda c: c.method == "sendDocument" and c.chat_id == FARMER, since=since, timeout=20
    )
    caption = report.params.get("caption", "")
    assert caption.startswith("Звіт") and "Excel" in caption, caption
    # 6. /me: what Stepan remembers, in words.
    me = await say(FARMER, "/me")
    assert (me.text or "").startswith(t("me.header"))
    for line in (
        t("me.line.name", value="Олена Петрівна"),
        t("me.line.fields", value="Північне, Південне"),
        t("me.line.crops", value="Пшениця, Соняшник"),
    ):
        assert line in (me.text or "")
    assert StyleCD(style="brief").pack() in buttons(me)
    # 7. /help: what Stepan can do, the commands, the buttons.
    help_reply = await say(FARMER, "/help")
    intro = CATALOG.text("uk", "light.brief.help")  # she chose «коротко»
    assert help_reply.text == help_text(Texts(CATALOG, "uk"), intro, operator=False)
    markup = keyboard(help_buttons(Texts(CATALOG, "uk")))
    assert markup is not None
    assert help_reply.params["reply_markup"] == markup.model_dump(exclude_none=True)


async def test_a_new_operators_first_five_minutes(harness: Harness) -> None:
    say = harness.say
    hello = await say(OPERATOR, "/start", first_name="Андрій")
    # Operators get the terse, technical voice and the debug line (issue 11).
    assert (hello.text or "").startswith(t("level.expert.light.greeting_new", name="Андрію"))
    # /help: what Stepan can do, the farmer's commands and the operator's own.
    help_reply = await say(OPERATOR, "/help")
    can = "\n".join(t(f"help.can.{name}") for name in CAPABILITIES)
    assert f"\n\n{can}\n\n" in (help_reply.text or "")
    # The operator's technical line closes the message, after the commands.
    body, footer = (help_reply.text or "").rsplit("\n\n", 1)
    assert body.endswith(help_list(Texts(CATALOG, "uk"), operator=True))
    assert footer.startswith("⚙️ код ") and "⚙️" not in body
    # /profile without an id: the operator's own card.
    card = await say(OPERATOR, "/profile")
    assert (card.text or "").startswith("👤") and f"Telegram id: {OPERATOR}" in (card.text or "")
    # /status: every line in words.
    status = await say(OPERATOR, "/status")
    lines = (status.text or "").splitlines()
    assert lines[0] == t("admin.status_header")
    assert lines[1].startswith(f"✅ {t('status.service.database')}: {t('compose.state.ok')} — ")
    off = t("compose.state.off")
    assert f"⚪ {t('status.service.llm')}: {off} — {t('status.llm.off')}" in lines
    # /pending: nothing yet.
    assert (await say(OPERATOR, "/pending")).text == t("terms.none")
    # A mistyped edit gets the command's own usage; a value out of range, in words.
    assert (await say(OPERATOR, "/profile abc")).text == t("admin.usage_profile")
    await say(FARMER, "привіт")
    bad = await say(OPERATOR, f"/farm {FARMER} update soil_moisture_min=150")
    field = t("admin.field.soil_moisture_min")
    reason = t("admin.problem.less_than_equal", field=field, limit="100")
    assert bad.text == t("admin.invalid", reason=reason)
