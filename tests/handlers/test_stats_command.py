"""/stats [period]: the figures beside their targets and the daily chart, operators only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.handlers.operators.rules import ProposalCD
from bot.local.session import LocalBot
from bot.wiring.factory import Core
from db.models import InteractionRow, ProposalRow
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.learning.config import LearningRules
from pipeline.learning.stats import collect
from pipeline.learning.stats_report import stats_text
from tests.handlers.conftest import FARMER, OPERATOR, message_id, requests

PNG = b"\x89PNG\r\n\x1a\n"


async def _seed(core: Core, now: datetime) -> None:
    rows = [
        InteractionRow(
            trace_id=f"s{n:04d}",
            user_id=f"tg:{FARMER}",
            chat_id=FARMER,
            mode="light" if n % 3 else "deep",
            intent="greeting" if n % 3 else "iot",
            crew=[] if n % 3 else ["iot"],
            confidence=0.9,
            reason="rule",
            latency_ms=40.0 + n,
            text=None,
            created_at=now - timedelta(hours=5 * n + 1),
            eval_warnings=0 if n % 5 else 1,
            eval_infos=0,
            eval_failed=[],
        )
        for n in range(60)  # 60 rows over 12,5 days
    ]
    async with core.db.write() as session:
        session.add_all(rows)


async def test_an_operator_gets_the_figures_and_the_chart(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    now = datetime.now(UTC)
    await _seed(core, now)
    calls = await tg.say(OPERATOR, "/stats 3d")
    [call] = requests(calls)
    assert call[0] == "sendPhoto" and call[1]["chat_id"] == OPERATOR
    caption = call[1]["caption"]
    assert caption.startswith(
        catalog.text("uk", "stats.header", period="3 дн.", count=len(range(0, 15)))
    )
    # Exactly the text of the figures computed for the same period (give or take the
    # second between the command and this check).
    figures = await collect(core.db, now - timedelta(days=3), LearningRules.load().targets)
    assert (
        caption.splitlines()[1:-1]
        == stats_text(figures, Texts(catalog, "uk"), "-").splitlines()[1:-1]
    )
    photo = calls[0].files["photo"]
    assert photo.data.startswith(PNG)


async def test_a_bad_period_gets_the_usage_and_an_empty_database_no_chart(
    tg: LocalBot, catalog: Catalog
) -> None:
    [(method, params)] = requests(await tg.say(OPERATOR, "/stats forever"))
    assert (method, params["text"]) == ("sendMessage", catalog.text("uk", "stats.usage"))
    [(method, params)] = requests(await tg.say(OPERATOR, "/stats"))
    assert method == "sendMessage"
    assert params["text"].startswith(catalog.text("uk", "stats.header", period="7 дн.", count=0))
    assert params["text"].endswith(catalog.text("uk", "stats.no_chart"))


async def test_an_operator_approves_a_nightly_proposal_with_its_button(
    tg: LocalBot, core: Core, catalog: Catalog
) -> None:
    async with core.db.write() as session:
        row = ProposalRow(
            intent="recording", kind="trigger", term="розкидали", support=3,
            dev_before=1.0, dev_after=1.0, corrections_before=0.0, corrections_after=1.0,
        )  # fmt: skip
        session.add(row)
    [card] = await tg.say(OPERATOR, "дякую")
    calls = await tg.press(OPERATOR, ProposalCD(proposal=row.id, approve=True).pack(),
                           message_id(card))  # fmt: skip
    [version] = await core.overlays.versions()
    assert [t.term for t in version.terms] == ["розкидали"]
    answered = [c for c in calls if c.method == "answerCallbackQuery"]
    assert answered[0].params["text"] == catalog.text(
        "uk", "overlay.decision_approved", id=row.id, version=version.id
    )
    # A farmer's forged press reaches no handler that decides anything.
    await tg.press(FARMER, ProposalCD(proposal=row.id, approve=False).pack(), message_id(card))
    async with core.db.read() as session:
        assert (await session.get(ProposalRow, row.id)).status == "approved"  # type: ignore[union-attr]
    # /rules lists the version in force with the intent and the kind by their names.
    [(method, params)] = requests(await tg.say(OPERATOR, "/rules"))
    term = catalog.text(
        "uk",
        "overlay.term",
        term="розкидали",
        intent=catalog.text("uk", "learning.intent.recording"),
        kind=catalog.text("uk", "nightly.kind.trigger"),
    )
    assert method == "sendMessage" and term in params["text"] and "recording" not in params["text"]
