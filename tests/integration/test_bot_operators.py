"""Operator commands and buttons through the real dispatcher and a fake Bot API.

Every operator command and callback is tried by a non-operator too: refused
politely, nothing changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select

from bot.keyboards.admin import FarmCD, FarmIotCD, ProfileCD, TermCD
from db.models import FarmProfileRow, UserProfileRow
from pipeline.actions import JournalVerb
from tests.conftest import make_settings
from tests.integration.bot_harness import Harness, running_bot

OPERATOR = 1001
FARMER = 2002
INTRUDER = 3003


@pytest.fixture
async def harness(sqlite_url: str) -> AsyncIterator[Harness]:
    settings = make_settings(sqlite_url, operator_ids=frozenset({OPERATOR}))
    async with running_bot(settings) as harness:
        # The farmer and the intruder exist: they have talked to Stepan once.
        await harness.say(FARMER, "привіт", first_name="Оксана")
        await harness.say(INTRUDER, "привіт", first_name="Ігор")
        yield harness


async def _user(harness: Harness, telegram_id: int) -> UserProfileRow:
    async with harness.core.db.sessions() as session:
        row = await session.get(UserProfileRow, f"tg:{telegram_id}")
        assert row is not None
        return row


async def _farm(harness: Harness, telegram_id: int) -> FarmProfileRow:
    async with harness.core.db.sessions() as session:
        result = await session.execute(
            select(FarmProfileRow).where(FarmProfileRow.user_id == f"tg:{telegram_id}")
        )
        return result.scalar_one()


def _not_operator(harness: Harness) -> str:
    return harness.core.pipeline.catalog.text("uk", "admin.not_operator")


async def test_profile_card_with_buttons(harness: Harness) -> None:
    card = await harness.say(OPERATOR, f"/profile {FARMER}")
    assert "Оксана" in (card.text or "")
    assert f"Telegram id: {FARMER}" in (card.text or "")
    buttons = [
        b["callback_data"] for row in card.params["reply_markup"]["inline_keyboard"] for b in row
    ]
    assert ProfileCD(user=FARMER, field="preferred_style", value="brief").pack() in buttons
    assert ProfileCD(user=FARMER, field="expertise_level", value="expert").pack() in buttons


async def test_operator_button_changes_style_and_next_reply_follows(harness: Harness) -> None:
    card = await harness.say(OPERATOR, f"/profile {FARMER}")
    data = ProfileCD(user=FARMER, field="preferred_style", value="brief").pack()
    answer = await harness.press(OPERATOR, data, harness.message_id(card))
    assert answer.ok
    assert (await _user(harness, FARMER)).preferred_style == "brief"
    edited = await harness.api.wait_for(lambda c: c.method == "editMessageText", timeout=10)
    assert "коротко" in (edited.text or "")
    reply = await harness.say(FARMER, "привіт", first_name="Оксана")
    catalog = harness.core.pipeline.catalog
    # Brief, and still a new farmer's (novice's) one-line explanation after it.
    why = catalog.text("uk", "level.novice.why.light.greeting")
    brief = [
        catalog.variant("uk", "light.brief.greeting", n, name="Оксано") + f"\n\n{why}"
        for n in range(2)
    ]
    assert reply.text in brief


async def test_operator_sets_expertise_and_it_is_locked(harness: Harness) -> None:
    reply = await harness.say(OPERATOR, f"/profile {FARMER} set expertise_level=expert")
    assert reply.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    row = await _user(harness, FARMER)
    assert row.expertise_level == "expert" and row.expertise_locked is True


@pytest.mark.parametrize(
    ("command", "expected_key"),
    [
        ("/profile set name=Bob", "admin.bad_key"),
        ("/profile set preferred_style=loud", "admin.bad_value"),
        ("/profile set", "admin.usage_set"),
        ("/profile abc", "admin.usage_profile"),  # the command's own usage, not set's
        ("/farm abc", "admin.usage_farm"),
        ("/farm update current_phase=party", "admin.bad_value"),
        ("/farm update soil_moisture_min=lots", "admin.not_a_number"),
        ("/farm update owner=me", "admin.bad_key"),
        ("/farm update timezone=Mars/Olympus", "admin.bad_timezone"),
    ],
)
async def test_bad_operator_input_gets_a_clear_error(
    harness: Harness, command: str, expected_key: str
) -> None:
    await harness.say(OPERATOR, "привіт")
    reply = await harness.say(OPERATOR, command)
    catalog = harness.core.pipeline.catalog
    expected = catalog.text("uk", expected_key)
    # Placeholders differ by input; compare the fixed part before the first one.
    assert (reply.text or "").startswith(expected.split("{")[0].split("«")[0])


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("/farm update soil_moisture_min=150", ("less_than_equal", "soil_moisture_min", "100")),
        ("/farm update temperature_max=-70", ("greater_than_equal", "temperature_max", "-60")),
        ("/farm update temperature_min=45", ("temperature_order", "other", "")),
    ],
)
async def test_a_refused_value_is_named_in_words(
    harness: Harness, command: str, problem: tuple[str, str, str]
) -> None:
    """Not pydantic's «Input should be less than or equal to 100» (issue 16 point 3)."""
    await harness.say(OPERATOR, "привіт")
    reply = await harness.say(OPERATOR, command)
    t = harness.core.pipeline.catalog.text
    kind, field, limit = problem
    reason = t("uk", f"admin.problem.{kind}", field=t("uk", f"admin.field.{field}"), limit=limit)
    assert reply.text == t("uk", "admin.invalid", reason=reason)
    assert "_" not in (reply.text or "") and "Input" not in (reply.text or "")


async def test_profile_without_an_id_is_the_operators_own_card(harness: Harness) -> None:
    """Even before the operator wrote anything as a farmer (issue 16 point 5)."""
    reply = await harness.say(OPERATOR, "/profile")
    t = harness.core.pipeline.catalog.text
    assert (reply.text or "").startswith("👤") and f"Telegram id: {OPERATOR}" in (reply.text or "")
    assert (reply.text or "").endswith(t("uk", "admin.own_card_new"))
    await harness.say(OPERATOR, "привіт")
    again = await harness.say(OPERATOR, "/profile")
    assert t("uk", "admin.own_card_new") not in (again.text or "")


async def test_unknown_user(harness: Harness) -> None:
    reply = await harness.say(OPERATOR, "/profile 987654")
    assert reply.text == harness.core.pipeline.catalog.text("uk", "admin.no_user")


async def test_profile_of_forwarded_message_author(harness: Harness) -> None:
    since = len(harness.api.sent)
    harness.api.push_update(
        {
            "message": {
                "message_id": 500,
                "date": 1,
                "chat": {"id": OPERATOR, "type": "private"},
                "from": {"id": OPERATOR, "is_bot": False, "first_name": "Op"},
                "text": "/profile",
                "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
                "reply_to_message": {
                    "message_id": 499,
                    "date": 1,
                    "chat": {"id": OPERATOR, "type": "private"},
                    "text": "запиши полив",
                    "forward_origin": {
                        "type": "user",
                        "date": 1,
                        "sender_user": {"id": FARMER, "is_bot": False, "first_name": "Оксана"},
                    },
                },
            }
        }
    )
    card = await harness.reply(OPERATOR, since)
    assert f"Telegram id: {FARMER}" in (card.text or "")


async def test_farm_card_and_phase_button(harness: Harness) -> None:
    card = await harness.say(OPERATOR, f"/farm {FARMER}")
    assert "Пороги" in (card.text or "")
    data = FarmCD(user=FARMER, phase="sowing").pack()
    await harness.press(OPERATOR, data, harness.message_id(card))
    assert (await _farm(harness, FARMER)).seasonal_context.get("current_phase") == "sowing"


async def test_phase_lock_and_sensor_switch_from_the_farm_card(harness: Harness) -> None:
    card = await harness.say(OPERATOR, f"/farm {FARMER}")
    buttons = [
        b["callback_data"] for row in card.params["reply_markup"]["inline_keyboard"] for b in row
    ]
    assert FarmCD(user=FARMER, phase="auto").pack() in buttons
    assert FarmIotCD(user=FARMER, on=True).pack() in buttons
    await harness.press(
        OPERATOR, FarmCD(user=FARMER, phase="sowing").pack(), harness.message_id(card)
    )
    farm = await _farm(harness, FARMER)
    assert farm.seasonal_context["current_phase"] == "sowing" and farm.phase_locked
    edited = await harness.api.wait_for(lambda c: c.method == "editMessageText", timeout=10)
    assert "встановив оператор" in (edited.text or "")
    await harness.press(OPERATOR, FarmIotCD(user=FARMER, on=True).pack(), harness.message_id(card))
    farm = await _farm(harness, FARMER)
    assert farm.iot_sensors["has_iot_integration"] is True
    assert farm.active_integrations == ["sensors"]
    await harness.api.wait_for(
        lambda c: c.method == "editMessageText" and "Датчики: Так" in (c.text or ""), timeout=10
    )
    off = await harness.say(OPERATOR, f"/farm {FARMER} update sensors=off")
    assert off.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    farm = await _farm(harness, FARMER)
    assert farm.iot_sensors["has_iot_integration"] is False and farm.active_integrations == []
    auto = await harness.say(OPERATOR, f"/farm {FARMER} update phase=auto")
    assert auto.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    farm = await _farm(harness, FARMER)
    # Unlocked; the farmer's journal is empty, so nothing names a phase.
    assert not farm.phase_locked and farm.seasonal_context["current_phase"] is None


async def test_operator_unlocks_the_level(harness: Harness) -> None:
    await harness.say(OPERATOR, f"/profile {FARMER} set expertise_level=expert")
    card = await harness.say(OPERATOR, f"/profile {FARMER}")
    data = ProfileCD(user=FARMER, field="expertise_level", value="auto").pack()
    answer = await harness.press(OPERATOR, data, harness.message_id(card))
    assert answer.params.get("text") == harness.core.pipeline.catalog.text("uk", "admin.saved")
    row = await _user(harness, FARMER)
    # The lock goes; the level never goes down by the rule.
    assert (row.expertise_level, row.expertise_locked) == ("expert", False)
    await harness.api.wait_for(lambda c: c.method == "editMessageText", timeout=10)
    await harness.say(OPERATOR, f"/profile {FARMER} set expertise_level=novice")
    assert (await _user(harness, FARMER)).expertise_locked
    await harness.say(OPERATOR, f"/profile {FARMER} set expertise_level=auto")
    row = await _user(harness, FARMER)
    assert (row.expertise_level, row.expertise_locked) == ("novice", False)


async def test_farm_update_thresholds_validated(harness: Harness) -> None:
    ok = await harness.say(OPERATOR, f"/farm {FARMER} update soil_moisture_min=25")
    assert ok.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    assert (await _farm(harness, FARMER)).alert_thresholds["soil_moisture_min"] == 25.0
    bad = await harness.say(OPERATOR, f"/farm {FARMER} update soil_moisture_min=150")
    t = harness.core.pipeline.catalog.text
    field = t("uk", "admin.field.soil_moisture_min")
    reason = t("uk", "admin.problem.less_than_equal", field=field, limit="100")
    assert bad.text == t("uk", "admin.invalid", reason=reason)
    assert (await _farm(harness, FARMER)).alert_thresholds["soil_moisture_min"] == 25.0


async def test_farm_timezone_is_set_and_shown(harness: Harness) -> None:
    ok = await harness.say(OPERATOR, f"/farm {FARMER} update timezone=america/new_york")
    assert ok.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    assert (await _farm(harness, FARMER)).timezone == "America/New_York"
    card = await harness.say(OPERATOR, f"/farm {FARMER}")
    assert "America/New_York" in (card.text or "")


async def test_farm_update_region_reads_the_oblast(harness: Harness) -> None:
    ok = await harness.say(OPERATOR, f"/farm {FARMER} update region=Полтавська")
    assert ok.text == harness.core.pipeline.catalog.text("uk", "admin.saved")
    assert (await _farm(harness, FARMER)).region == "poltava"
    bad = await harness.say(OPERATOR, f"/farm {FARMER} update region=Марс")
    assert bad.text == harness.core.pipeline.catalog.text("uk", "admin.bad_region", value="марс")
    assert (await _farm(harness, FARMER)).region == "poltava"
    # The farmer's next sowing question is answered for Poltava's zone.
    reply = await harness.say(FARMER, "коли сіяти озиму пшеницю?")
    assert "Полтавська область, Лісостеп" in (reply.text or "")


@pytest.mark.parametrize(
    "command",
    [
        f"/farm {FARMER} update region=Полтавська",
        "/profile",
        f"/profile {FARMER}",
        f"/profile {FARMER} set preferred_style=brief",
        "/farm",
        f"/farm {FARMER} update current_phase=harvest",
        "/status",
        "/pending",
        "/approve 1",
        "/reject 1",
        "/apply_dict",
        "/pending_stats",
        "/token",
    ],
)
async def test_non_operator_commands_are_refused(harness: Harness, command: str) -> None:
    reply = await harness.say(INTRUDER, command)
    assert reply.text == _not_operator(harness)
    row = await _user(harness, FARMER)
    assert row.preferred_style == "conversational"
    assert (await _farm(harness, FARMER)).seasonal_context.get("current_phase") is None


@pytest.mark.parametrize(
    "data",
    [
        ProfileCD(user=FARMER, field="preferred_style", value="brief").pack(),
        ProfileCD(user=FARMER, field="expertise_level", value="expert").pack(),
        ProfileCD(user=FARMER, field="expertise_level", value="auto").pack(),
        FarmCD(user=FARMER, phase="harvest").pack(),
        FarmCD(user=FARMER, phase="auto").pack(),
        FarmIotCD(user=FARMER, on=True).pack(),
        TermCD(term=1, approve=True).pack(),
    ],
)
async def test_forged_operator_callbacks_change_nothing(harness: Harness, data: str) -> None:
    # The intruder presses an operator button on a message of their own.
    own = await harness.say(INTRUDER, "дякую")
    answer = await harness.press(INTRUDER, data, harness.message_id(own))
    assert answer.params.get("text") == _not_operator(harness)
    row = await _user(harness, FARMER)
    # A new farmer's defaults (novice since issue 11 point 2), untouched.
    assert row.preferred_style == "conversational" and row.expertise_level == "novice"
    assert not row.expertise_locked
    farm = await _farm(harness, FARMER)
    assert farm.seasonal_context.get("current_phase") is None and not farm.phase_locked
    assert not farm.iot_sensors.get("has_iot_integration") and farm.active_integrations == []


async def test_whoami(harness: Harness) -> None:
    assert str(OPERATOR) in ((await harness.say(OPERATOR, "/whoami")).text or "")
    intruder = await harness.say(INTRUDER, "/whoami")
    assert "користувач" in (intruder.text or "")


async def test_status_lists_jobs(harness: Harness) -> None:
    from bot.wiring.scheduler import JobRunner, default_jobs

    core = harness.core
    runner = JobRunner(core.db, "test-instance")
    jobs = default_jobs(
        core.db, sweep=core.memory.sweep, cache=core.memory.cache, sync=core.memory.sync
    )
    spec = next(s for s in jobs if s.job_id == "cache_expiry")
    assert await runner.run(spec) == "ok"
    reply = await harness.say(OPERATOR, "/status")
    t, text = harness.core.pipeline.catalog.text, reply.text or ""
    job = t("uk", "status.service.job", job=t("uk", "status.job.cache_expiry"))
    assert f"✅ {job}: {t('uk', 'compose.state.ok')} — " in text
    assert f"✅ {t('uk', 'status.service.database')}: " in text
    off = t("uk", "compose.state.off")
    memory, llm = t("uk", "status.service.memory"), t("uk", "status.service.llm")
    assert f"⚪ {memory}: {off} — {t('uk', 'status.memory.off')}" in text
    assert f"⚪ {llm}: {off} — {t('uk', 'status.llm.off')}" in text


async def test_operator_commands_registered_in_their_scope(harness: Harness) -> None:
    from bot.commands import set_commands

    await set_commands(harness.bot, harness.core.pipeline.catalog, frozenset({OPERATOR}))
    default = {c["command"] for c in harness.api.commands()}
    scoped = {
        c["command"]
        for call in harness.api.calls("setMyCommands")
        if call.params.get("scope", {}).get("type") == "chat"
        for c in call.params["commands"]
    }
    assert "profile" not in default and {"start", "help", "me"} <= default
    assert {"profile", "farm", "status"} <= scoped


async def test_record_card_and_term_review_through_the_bot(harness: Harness) -> None:
    catalog = harness.core.pipeline.catalog
    card = await harness.say(FARMER, "запиши полив 15 мм на полі Гора вчора")
    assert (card.text or "").startswith("📝")
    write = next(
        b["callback_data"]
        for row in card.params["reply_markup"]["inline_keyboard"]
        for b in row
        if b["callback_data"].startswith(f"jr:{JournalVerb.WRITE}:")
    )
    since = len(harness.api.sent)
    await harness.press(FARMER, write, harness.message_id(card))
    edited = await harness.reply(FARMER, since)
    # The card itself now says it was written; only ↩️ (take it back) is left.
    assert edited.method == "editMessageText"
    assert catalog.text("uk", "journal.written") in (edited.text or "")
    left = [
        b["callback_data"] for row in edited.params["reply_markup"]["inline_keyboard"] for b in row
    ]
    assert left == [write.replace(f":{JournalVerb.WRITE}:", f":{JournalVerb.UNDO}:")]
    pending = await harness.say(OPERATOR, "/pending")
    assert "«Гора»" in (pending.text or "")
    term_id = int((pending.text or "").split("#", 2)[1].split()[0])
    # The intruder cannot approve it, by command or by button.
    refused = await harness.say(INTRUDER, f"/approve {term_id}")
    assert refused.text == _not_operator(harness)
    approved = await harness.say(OPERATOR, f"/approve {term_id}")
    assert "field:hora" in (approved.text or "")
    applied = await harness.say(OPERATOR, "/apply_dict")
    assert applied.text == catalog.text("uk", "terms.applied", terms=1, operations=1)
    stats = await harness.say(OPERATOR, "/pending_stats")
    assert stats.text == catalog.text(
        "uk", "terms.stats", pending=0, approved=0, applied=1, rejected=0
    )
