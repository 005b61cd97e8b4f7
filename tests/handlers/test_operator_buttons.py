"""The operators' buttons on the one path of every button (issue 24 point 2): each
typed CallbackData to its action, the action to its use case in the one registry;
the use case refuses anyone but an operator itself, whatever router the press came
through, and the reply says how it is shown."""

from __future__ import annotations

from datetime import timedelta
from typing import get_args
from unittest.mock import ANY

import pytest
from sqlalchemy import select

from bot.keyboards.admin import OPERATOR_BUTTONS, LearningCD, ProposalCD, admin_callback_data
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import OperationRevisionRow, OperationRow, ProposalRow
from db.repositories import weather as weather_repo
from pipeline.admin.actions import (
    FarmAction,
    FarmCardAction,
    FarmIotAction,
    FarmJournalAction,
    LearningDeleteAction,
    OperatorAction,
    ProfileAction,
    ProposalAction,
    TermAction,
)
from pipeline.admin.buttons import OperatorOnly
from pipeline.clock import utcnow
from pipeline.language.catalog import Catalog
from pipeline.types import Incoming, Reply, Shown
from tests.handlers.conftest import FARMER, INTRUDER, OPERATOR, message_id, requests, user_row

ACTIONS: list[OperatorAction] = [
    ProfileAction(FARMER, "expertise_level", "expert"),
    ProfileAction(FARMER, "expertise_level", "auto"),
    ProfileAction(FARMER, "preferred_style", "brief"),
    FarmAction(FARMER, "harvest"),
    FarmAction(FARMER, "auto"),
    FarmIotAction(FARMER, True),
    FarmCardAction(FARMER),
    FarmJournalAction(FARMER),
    TermAction(1, True),
    ProposalAction(1, True),
    LearningDeleteAction(1),
]


def _intruder() -> Incoming:
    return Incoming(user_id=f"tg:{INTRUDER}", chat_id=INTRUDER, text="", trace_id="t1")


async def _proposal(core: Core) -> ProposalRow:
    """A nightly proposal waiting for an operator."""
    async with core.db.write() as session:
        row = ProposalRow(
            intent="recording", kind="trigger", term="розкидали", support=3,
            dev_before=1.0, dev_after=1.0, corrections_before=0.0, corrections_after=1.0,
        )  # fmt: skip
        session.add(row)
    return row


def test_every_operator_button_has_an_action_and_back() -> None:
    kinds = {type(action) for action in ACTIONS}
    assert kinds == set(get_args(OperatorAction))
    for action in ACTIONS:
        data = admin_callback_data(action)
        assert type(data) in OPERATOR_BUTTONS
        assert type(data).unpack(data.pack()).to_action() == action


def test_every_operator_use_case_checks_the_presser(core: Core) -> None:
    uses = core.pipeline.buttons.uses
    assert {kind for kind in get_args(OperatorAction) if isinstance(uses[kind], OperatorOnly)} == (
        set(get_args(OperatorAction))
    )


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
async def test_the_pipeline_refuses_a_non_operator_without_the_router(
    tg: LocalBot, core: Core, catalog: Catalog, action: OperatorAction
) -> None:
    """Straight to the pipeline, past the routers' IsOperator filter: still refused,
    as an alert, and nothing changed."""
    await tg.say(FARMER, "привіт")
    proposal = await _proposal(core)
    await core.learnings.add("negative", None, "a rule", None)

    reply = await core.pipeline.handle_action(action, _intruder())

    refusal = catalog.text("uk", "admin.not_operator")
    assert reply == Reply(refusal, shown=Shown.POPUP, alert=True)
    row = await user_row(core, FARMER)
    assert row is not None
    assert (row.expertise_level, row.expertise_locked, row.preferred_style) == (
        "novice",
        False,
        "conversational",
    )
    async with core.db.read() as session:
        assert (await session.get(ProposalRow, proposal.id)).status == "pending"  # type: ignore[union-attr]
    assert [item.rule for item in await core.learnings.items()] == ["a rule"]


async def test_a_farmer_pressing_a_proposal_or_a_learning_button_is_refused(
    tg: LocalBot, catalog: Catalog
) -> None:
    [own] = await tg.say(INTRUDER, "дякую")
    refusal = catalog.text("uk", "admin.not_operator")
    for data in (ProposalCD(proposal=1, approve=True), LearningCD(learning=1)):
        calls = await tg.press(INTRUDER, data.pack(), message_id(own))
        assert requests(calls) == [
            (
                "answerCallbackQuery",
                {"callback_query_id": ANY, "text": refusal, "show_alert": True},
            )
        ]


async def test_a_proposal_card_keeps_its_figures_and_says_what_was_decided(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    row = await _proposal(core)
    [card] = await tg.say(OPERATOR, "дякую")
    calls = await tg.press(
        OPERATOR, ProposalCD(proposal=row.id, approve=False).pack(), message_id(card)
    )
    decided = catalog.text("uk", "overlay.decision_rejected", id=row.id, version=None)
    [(answer, answered), (edit, edited)] = requests(calls)
    assert (answer, answered) == (
        "answerCallbackQuery",
        {"callback_query_id": ANY, "text": decided},
    )
    assert edit == "editMessageText"
    assert edited["text"] == f"{card.params['text']}\n\n{decided}"
    assert "reply_markup" not in edited or edited["reply_markup"] is None


async def test_an_operator_deletes_a_learning_with_its_button(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    await core.learnings.add("negative", "recording", "Пиши коротше", None)
    [item] = await core.learnings.items()
    [listing] = await tg.say(OPERATOR, "/learnings")
    [[button]] = listing.params["reply_markup"]["inline_keyboard"]
    assert button == {
        "text": catalog.text("uk", "learning.learnings_delete", id=item.id),
        "callback_data": LearningCD(learning=item.id).pack(),
    }
    for key in ("learning.learnings_deleted", "learning.learnings_missing"):
        calls = await tg.press(OPERATOR, button["callback_data"], message_id(listing))
        assert requests(calls) == [
            (
                "answerCallbackQuery",
                {"callback_query_id": ANY, "text": catalog.text("uk", key, id=item.id)},
            )
        ]
    assert await core.learnings.items() == []


async def test_an_unknown_farmers_card_button_says_so_and_edits_nothing(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    [card] = await tg.say(OPERATOR, "/farm")
    for data in (
        admin_callback_data(FarmAction(987654, "harvest")),
        admin_callback_data(ProfileAction(987654, "preferred_style", "brief")),
    ):
        calls = await tg.press(OPERATOR, data.pack(), message_id(card))
        assert requests(calls) == [
            (
                "answerCallbackQuery",
                {"callback_query_id": ANY, "text": catalog.text("uk", "admin.no_user")},
            )
        ]
    assert await user_row(core, 987654) is None


def _buttons(sent: object) -> list[dict[str, str]]:
    markup = getattr(sent, "params", {}).get("reply_markup") or {"inline_keyboard": []}
    return [b for row in markup["inline_keyboard"] for b in row]


async def test_an_operator_deletes_an_entry_of_a_farmers_journal(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """«📒 Журнал» on the /farm card: the farm's last entries; the operator opens one and
    deletes it with the farmer's own cards; the history says who did it."""
    [card] = await tg.say(FARMER, "запиши полив 20 мм вчора")
    write = next(b for b in _buttons(card) if b["callback_data"].startswith("jr:write:"))
    await tg.press(FARMER, write["callback_data"], message_id(card))
    [farm] = await tg.say(OPERATOR, f"/farm {FARMER}")
    journal = next(
        b for b in _buttons(farm) if b["text"] == catalog.text("uk", "admin.farm_journal")
    )
    [listing] = [
        c
        for c in await tg.press(OPERATOR, journal["callback_data"], message_id(farm))
        if c.method == "sendMessage"
    ]
    [entry_button] = _buttons(listing)
    [entry] = [
        c
        for c in await tg.press(OPERATOR, entry_button["callback_data"], message_id(listing))
        if c.method == "sendMessage"
    ]
    delete = next(b for b in _buttons(entry) if b["callback_data"].startswith("je:delete:"))
    [ask] = [
        c
        for c in await tg.press(OPERATOR, delete["callback_data"], message_id(entry))
        if c.method == "sendMessage"
    ]
    apply = next(b for b in _buttons(ask) if b["callback_data"].startswith("jr:apply:"))
    # The farmer's own card, pressed by the farmer, is the operator's: refused.
    refused = await tg.press(FARMER, apply["callback_data"], message_id(ask))
    assert any(c.params.get("text") == catalog.text("uk", "journal.not_yours") for c in refused)
    await tg.press(OPERATOR, apply["callback_data"], message_id(ask))
    async with core.db.read() as session:
        rows = (
            (await session.execute(select(OperationRow).execution_options(include_deleted=True)))
            .scalars()
            .all()
        )
        revisions = (await session.execute(select(OperationRevisionRow))).scalars().all()
    [row] = rows
    assert row.deleted_at is not None
    assert [(r.kind, r.actor) for r in revisions] == [
        ("write", f"tg:{FARMER}"),
        ("delete", f"tg:{OPERATOR}"),
    ]

    # The farm's journal now lists it as deleted; the operator puts it back.
    [listing] = [
        c
        for c in await tg.press(OPERATOR, journal["callback_data"], message_id(farm))
        if c.method == "sendMessage"
    ]
    [deleted] = _buttons(listing)
    assert deleted["text"].startswith("🗑")
    [entry] = [
        c
        for c in await tg.press(OPERATOR, deleted["callback_data"], message_id(listing))
        if c.method == "sendMessage"
    ]
    restore = next(b for b in _buttons(entry) if b["callback_data"].startswith("je:restore:"))
    [ask] = [
        c
        for c in await tg.press(OPERATOR, restore["callback_data"], message_id(entry))
        if c.method == "sendMessage"
    ]
    apply = next(b for b in _buttons(ask) if b["callback_data"].startswith("jr:apply:"))
    await tg.press(OPERATOR, apply["callback_data"], message_id(ask))
    async with core.db.read() as session:
        [row] = (await session.execute(select(OperationRow))).scalars().all()
        kinds = [r.kind for r in (await session.execute(select(OperationRevisionRow))).scalars()]
    assert row.deleted_at is None and kinds == ["write", "delete", "restore"]


async def test_the_farm_card_names_the_weather_warnings_sent(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    """Operators see what the weather warnings told a farm (issue 27 point 6): one
    item per episode, newest first; two frosty nights are one frost."""
    await tg.say(FARMER, "привіт")
    farm_id = await core.memory.editor.ensure_farm(f"tg:{FARMER}")
    assert farm_id is not None
    [empty] = await tg.say(OPERATOR, f"/farm {FARMER}")
    never = catalog.text("uk", "cards.warnings", items=catalog.text("uk", "cards.never"))
    assert empty.text is not None and empty.text.endswith(never)
    today = utcnow().date()
    async with core.db.write() as session:
        for kind, back in (("frost", 10), ("frost", 9), ("rain", 2)):
            day = today - timedelta(days=back)
            assert await weather_repo.claim_warning(session, farm_id, kind, day, utcnow())
    [card] = await tg.say(OPERATOR, f"/farm {FARMER}")
    items = "; ".join(
        catalog.text("uk", "cards.warning", day=f"{day:%d.%m}", kind=catalog.text("uk", key))
        for day, key in (
            (today - timedelta(days=2), "cards.warning_kind.rain"),
            (today - timedelta(days=10), "cards.warning_kind.frost"),
        )
    )
    assert card.text is not None
    assert card.text.endswith(catalog.text("uk", "cards.warnings", items=items))
