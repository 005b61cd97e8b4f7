"""Every statement the product sends runs on an index (issue 17 point 5).

A scripted session drives the bot the way people do: a farmer's light and deep
messages, the journal (a card confirmed with its button, an unknown product), sensor
readings posted with a farm token, reports, charts, memory and feedback, a new
user's onboarding, an operator's commands; updates go through the inbox as in
``stepan run``, and then every job ``stepan run`` schedules (taken from the
dispatcher's scheduler) runs once. Every statement sent meanwhile is recorded with
the project function it came from (``tests/query_plans.py``), and each distinct one
is explained on SQLite and PostgreSQL against the seeded database. A read of a table
that grows with use end to end fails the test, unless the table is bounded or the
read is whole by design (``tests/query_plans_allowed.py``, with the reason).

Nothing in the test names a query: a new one in a handler, a job, the pipeline or a
repository is covered as soon as the session reaches it, and every module of the
project that builds SQL must be reached (``sql_modules``, or ``NOT_REACHED`` with the
reason), so a new one the script misses fails until the script reaches it.
"""

from __future__ import annotations

import ast
import dataclasses
from datetime import timedelta

import pytest
from aiogram.types import InlineKeyboardMarkup

from bot.http.readiness import readiness_checks
from bot.local.session import ApiCall, LocalBot
from bot.transport.serving import build_deferred, build_inbox
from bot.wiring.dispatcher import build_dispatcher
from bot.wiring.factory import Core, build_core
from bot.wiring.scheduler import JobRunner, JobSpec
from db.engine import create_engine
from db.schema import SchemaCheck
from db.uow import Database
from pipeline.clock import utcnow
from pipeline.farm.sensors.readings import parse_batch
from pipeline.profiles import UserProfile, user_fact_key
from pipeline.weather.warning_rules import WarningRules
from tests.conftest import make_settings
from tests.fakes.memory_service import JWT_SECRET, FakeMemoryService
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.query_plans import REPO, StatementLog, explained, full_scans
from tests.query_plans_allowed import GROWING, WHOLE_BY_DESIGN
from tests.query_plans_seed import FARM, seed
from tests.shared import catalog as shared_catalog
from tests.shared import rulebook

FARMER = 1  # tg:1, the seeded farmer with farm:1 and the field "Північне"
OPERATOR = 1001
NEWCOMER = 3003
#: A farmer SQL has lost and the memory-service still knows: merged back in.
RETURNING = 4004

#: What the farmer writes, in order (a journal card is confirmed with its first
#: button as it comes).
FARMER_SAYS = [
    "/start",
    "привіт",
    "дякую",
    "запиши полив 20 мм на Північному вчора",
    "вчора внесли карбамід на Північному 100 кг",
    "яка вологість ґрунту на Північному",
    "покажи дані датчиків за тиждень",
    "графік вологості",
    "зроби звіт в excel за червень",
    "план/факт за червень",
    "сплануй роботи на тиждень",
    "що я робив на полі минулого місяця",
    "коли сіяти пшеницю",
    "корова кашляє, що робити",
    "/me",
    "/myquestions",
    "/help",
    "які зараз тривоги по датчиках",
    "покажи графік вологості ґрунту на Північному за тиждень",
    # The weather (docs/weather.md), after the farm's point is set below.
    "яка погода завтра на Північному",
    "чи можна завтра обприскувати?",
    "чи можна вже сіяти соняшник?",
]
OPERATOR_SAYS = [
    "/status",
    "/stats",
    "/pending",
    "/pending_stats",
    "/approve 1",
    "/learnings",
    "/rules",
    "/questions",
    f"/profile {FARMER}",
    f"/farm {FARMER}",
    f"/farm {FARMER} update region=Полтавська",
    f"/token {FARMER}",
    "/whoami",
]
NEWCOMER_SAYS = ["/start", "привіт", "/forget"]

#: Modules that build SQL the session does not reach, and why.
NOT_REACHED: dict[str, str] = {
    "db.base": "column defaults of the schema (func.now()), not a query",
    "db.models": "column defaults of the schema (text('0')), not a query",
    "db.farm_models": "a partial index's condition (text('... IS NOT NULL')), not a query",
    "db.repositories.telegram_outbox": "only while Telegram's flood control holds a reply "
    "(a 429); every function of it runs in test_query_plans.py's walk",
}


def buttons(calls: list[ApiCall]) -> list[tuple[int, str]]:
    """(message id, callback data) of every inline button the bot sent."""
    found = []
    for call in calls:
        markup = call.params.get("reply_markup")
        if not call.ok or not isinstance(call.result, dict) or markup is None:
            continue
        if isinstance(markup, str):
            markup = InlineKeyboardMarkup.model_validate_json(markup)
        elif isinstance(markup, dict):
            markup = InlineKeyboardMarkup.model_validate(markup)
        if not isinstance(markup, InlineKeyboardMarkup):
            continue
        for row in markup.inline_keyboard:
            for button in row:
                if button.callback_data:
                    found.append((int(call.result["message_id"]), button.callback_data))
    return found


async def script(core: Core) -> None:
    """The session: messages, a confirmed card, readings, then every job once."""
    dispatcher = build_dispatcher(core)
    deferred = build_deferred(core)
    inbox = build_inbox(core, dispatcher, deferred=deferred)
    tg = LocalBot(dispatcher, first_update_id=100)  # the seed's inbox holds 1 and 2
    # The start-up hooks of `stepan run` (the alerts' and the nightly report's bot,
    # the operator flags), except the scheduler's: the jobs run below, one by one.
    workflow = {"dispatcher": dispatcher, "bots": [tg.bot], **dispatcher.workflow_data}
    for hook in dispatcher.startup.handlers:
        if getattr(hook.callback, "__name__", "") != "start_jobs":
            await hook.call(bot=tg.bot, **workflow)
    token = await core.sensors.issue_token(FARM, "plans")
    farm = await core.sensors.farm_for_token(token)
    assert farm == FARM
    now = utcnow()
    readings = parse_batch(
        [
            {"sensor_id": "p1", "sensor_type": "soil_moisture", "value": 11.0, "unit": "%",
             "measured_at": (now - timedelta(minutes=m)).isoformat(), "field_id": "field:north"}
            for m in (3, 2)
        ],
        core.sensors.types,
    )  # fmt: skip
    # Readings turn the farm's IoT on: the sensor questions below read them.
    await core.sensors.ingest(FARM, readings, source="api")
    # A location sent alone: the farm's point, then the field's.
    for press in (0, 1):
        calls = await tg.send_location(FARMER, 49.5883, 34.5514)
        message_id, data = buttons(calls)[press]
        await tg.press(FARMER, data, message_id)
    for text in FARMER_SAYS:
        calls = await tg.say(FARMER, text)
        if text.startswith("запиши"):
            for message_id, data in buttons(calls)[:1]:
                await tg.press(FARMER, data, message_id)
    for text in OPERATOR_SAYS:
        await tg.say(OPERATOR, text)
    await tg.say(RETURNING, "привіт")
    # An operator's edit of the merged farm is noted for the next merge.
    await tg.say(OPERATOR, f"/farm {RETURNING} update timezone=Europe/Kyiv")
    # Telegram redelivers the seeded update 1, whose lease ran out: replayed.
    redelivered = tg.telegram.message_update(FARMER, tg.telegram.text_fields("дякую"))
    await tg.feed({**redelivered, "update_id": 1})
    for text in NEWCOMER_SAYS:
        calls = await tg.say(NEWCOMER, text)
    for message_id, data in buttons(calls)[-1:]:  # /forget's "yes"
        await tg.press(NEWCOMER, data, message_id)
    await inbox.heartbeat()
    await inbox.expired()
    await inbox.backlog()
    await deferred.heartbeat()
    runner = JobRunner(core.db, "query-plans")
    specs: list[JobSpec] = [job.args[0] for job in dispatcher["scheduler"].get_jobs()]
    outcomes = {spec.job_id: await runner.run(spec) for spec in specs}
    # Each job ran to its end, so every statement of it was sent.
    assert len(outcomes) > 5 and set(outcomes.values()) == {"ok"}, outcomes
    for _, check in readiness_checks(core.db, SchemaCheck.load()):
        await check()


async def scans(url: str) -> tuple[list[str], set[str]]:
    """Full reads of growing tables not allowed, and the modules statements came from."""
    engine = create_engine(url)
    try:
        await seed(Database.of(engine))
    finally:
        await engine.dispose()
    async with FakeMemoryService() as service, FakeOpenMeteo() as weather:
        returning = f"tg:{RETURNING}"
        profile = UserProfile.default(returning).model_copy(update={"name": "Марія"})
        service.put_fact(f"stepan:{returning}", user_fact_key(returning), profile.to_seed_json())
        settings = make_settings(
            url,
            operator_ids=frozenset({OPERATOR}),
            memory_service_url=service.base_url,
            memory_service_jwt_secret=JWT_SECRET,
        )
        # The forecast from the fake Open-Meteo: the weather job and answers run.
        stepan = settings.stepan.model_copy(update={"weather_url": weather.base_url})
        settings = dataclasses.replace(settings, stepan=stepan)
        core = build_core(settings, rules=rulebook(), catalog=shared_catalog())
        log = StatementLog(core.engine)
        try:
            with log.attached(), log.recording() as captured:
                await script(core)
        except BaseException:
            await core.close()
            raise
    problems: list[str] = []
    try:
        distinct = {c.statement: c for c in filter(explained, captured)}
        async with core.engine.connect() as connection:
            for statement in distinct.values():
                tables = await full_scans(connection, statement, GROWING)
                for table in sorted(tables):
                    if (statement.function, table) not in WHOLE_BY_DESIGN:
                        problems.append(
                            f"{statement.function}: reads {table} whole: {statement.statement}"
                        )
    finally:
        await core.close()
    return problems, {c.module for c in captured}


def sql_modules() -> set[str]:
    """Modules of the project that build SQL: they import a statement builder
    (select, update, delete, insert, text, func) from SQLAlchemy."""
    builders = {"select", "update", "delete", "insert", "text", "func"}
    found = set()
    for root in ("bot", "db", "pipeline"):
        for path in (REPO / root).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.ImportFrom)
                    and (node.module or "").startswith("sqlalchemy")
                    and builders & {alias.name for alias in node.names}
                ):
                    found.add(".".join(path.relative_to(REPO).with_suffix("").parts))
    return found


@pytest.fixture
def daytime(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session runs in the farms' daytime, whatever the hour of the run: the
    weather warnings read the journals only for farms they may write to now."""
    monkeypatch.setattr(WarningRules, "may_send_at", lambda self, hour: True)


@pytest.mark.usefixtures("daytime")
async def test_no_statement_of_a_session_reads_a_growing_table_whole_sqlite(
    sqlite_url: str,
) -> None:
    problems, modules = await scans(sqlite_url)
    assert problems == [], "\n".join(problems)
    # Every module that builds SQL sent some during the session.
    missing = sql_modules() - modules - set(NOT_REACHED)
    assert sorted(missing) == []


@pytest.mark.postgres
@pytest.mark.usefixtures("daytime")
async def test_no_statement_of_a_session_reads_a_growing_table_whole_postgres(
    migrated_postgres_url: str,
) -> None:
    problems, _ = await scans(migrated_postgres_url)
    assert problems == [], "\n".join(problems)


def test_the_modules_that_build_sql_are_found() -> None:
    modules = sql_modules()
    assert "db.repositories.quality" in modules
    assert "db.repositories.farm" in modules
    assert set(NOT_REACHED) <= modules
