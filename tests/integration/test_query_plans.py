"""Every repository query runs on an index (issue 17 point 5).

Each public function of ``db/repositories`` that takes a session is called with
sample arguments on a seeded database; every statement it sends is captured
(``tests/query_plans.py``) and explained on SQLite and PostgreSQL. A statement that
would read a table growing with use end to end fails the test, unless the table is
bounded or the read is whole by design (``WHOLE_BY_DESIGN``, with the reason). A new
repository function needs its parameters in ``SAMPLES`` (or the test says which one
is missing), so it is covered as soon as it exists. Foreign keys need an index that
leads with their columns: deleting or re-keying the parent looks the children up.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pkgutil
from collections.abc import AsyncIterator, Callable
from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import PrimaryKeyConstraint, UniqueConstraint, select
from sqlalchemy.ext.asyncio import AsyncEngine

import db.repositories
from db.engine import create_engine
from db.models import (
    AlertRow,
    AnswerCacheRow,
    Base,
    ConversationSummaryRow,
    CorrectionRow,
    FeedbackRow,
    InteractionRow,
    JobRunRow,
    LearningRow,
    ProposalRow,
)
from db.repositories.inbox import Stored
from db.repositories.weather import WeatherHour
from db.uow import Database
from tests.query_plans import StatementLog, explained, full_scans
from tests.query_plans_allowed import GROWING, WHOLE_BY_DESIGN
from tests.query_plans_seed import FARM, NOW, USER, seed

#: Origins outside db/repositories (tests/query_plans.py's ``Captured.function``).
OTHERS = ("pipeline.", "bot.", "db.")
DAY = date(2026, 6, 15)
HOUR = int(NOW.timestamp()) // 3600
SAMPLES: dict[str, Any] = {
    "user_id": USER, "user_ids": [USER, "tg:2"], "farm_id": FARM, "farm_ids": [FARM],
    "trace_id": "trace-1",
    "term_id": 1, "draft_id": 1, "question_id": 1, "handoff_id": 1, "learning_id": 1,
    "update_id": 1, "update_ids": [1, 2], "ids": [1, 2], "job_id": "outbox_flush",
    "owner": "instance-a", "now": NOW, "at": NOW, "until": NOW + timedelta(hours=1),
    "since": NOW - timedelta(days=7), "quiet_before": NOW - timedelta(minutes=30),
    "operator_ids": [USER], "cutoff": NOW - timedelta(days=7),
    "before": NOW - timedelta(days=7), "slot_at": NOW, "start": DAY - timedelta(days=30),
    "end": DAY, "limit": 10, "per_user": 3, "keep": 5, "min_interactions": 1, "after": "",
    "language": "uk", "question": "Коли сіяти?", "card": "card", "consent": True,
    "text": "відповідь", "operator": 1, "field_id": "field:north", "crop_id": "crop:wheat",
    "name": "Північне", "kind": "crop", "term": "пшениця", "message": "посіяли пшеницю",
    "status": "pending", "chat_id": 1, "source_message_id": 7, "payload": {"op": "sowing"},
    "author": USER, "area_ha": 12.5, "timezone": "Europe/Kyiv", "peer": "vet",
    "domain": "veterinary", "partial": False, "sent": True, "outcome": "answered",
    "privacy_level": "public", "latency_ms": 10.0, "detail": "ok", "fact_key": "user",
    "operation": "upsert", "error": "boom", "state": "dead", "states": ["dead"],
    "created_by": "operator", "proposal_id": None, "active": False,
    "terms": [{"intent": "greeting", "kind": "trigger", "term": "здоров"}],
    "updates": [Stored(99, "{}")], "types": ["soil_moisture", "temperature"],
    "sensor_type": "soil_moisture", "width": 3600, "recovered_since": NOW - timedelta(days=1),
    "slot": "status", "summary_id": 1, "window": 20, "offset": 0, "by_sensor": False,
    "readings": [("field:north", "p1", "soil_moisture", 14.0, NOW - timedelta(minutes=5))],
    "hours": (HOUR - 48, HOUR),
    "row_id": 1, "method": "sendMessage", "not_before": NOW, "users": [USER, "tg:2"],
    "canonical_id": "crop:wheat", "display": "Пшениця", "region_id": "poltava",
    "mode": "deep", "token_hash": "h" * 64, "label": "probe", "alert_id": 1,
    "remote_merge": None, "operation_id": 1, "source_key": "1:8:field:north",
    "latitude": 49.59, "longitude": 34.55, "region": "poltava", "cell": (4960, 3455),
    "cells": [(4960, 3455), (4650, 3070)], "fetched_at": NOW, "day": DAY,
    "items": [WeatherHour(NOW, temperature=10.0)],
}  # fmt: skip
#: Arguments one function needs beyond (or instead of) the samples by name. Rows to
#: insert carry their key: the same object is inserted (and rolled back) on each engine.
OVERRIDES: dict[str, dict[str, Any]] = {
    "farm.insert_operation": {
        "values": {
            "farm_id": FARM,
            "op_type": "sowing",
            "op_date": DAY,
            "status": "done",
            "author": USER,
            "source_key": "1:8:field:north",
        }
    },
    "journal.overdue_plans": {"since": DAY - timedelta(days=7), "before": DAY},
    "journal.mark_reminded": {"operation_ids": [1], "when": NOW},
    "journal.planned_entries": {"since": DAY - timedelta(days=14), "until": DAY},
    "journal.change_entry": {"values": {"rate": 120.0, "op_date": "2026-06-01"}},
    "journal.set_deleted": {"when": NOW},
    "journal.add_revision": {
        "kind": "edit",
        "actor": USER,
        "before": {"rate": 150.0},
        "after": {"rate": 120.0},
        "source_key": "apply:1",
    },
    "profiles.insert_ignore": {"model": JobRunRow, "values": {"job_id": "new", "runs": 0}},
    # A job's outcome is a JobOutcome (ck_job_runs_last_outcome), not a handoff's.
    "jobs.record": {"outcome": "ok"},
    "profiles.write_user_values": {
        "columns": ["interaction_count"],
        "rows": [{"user_id": USER, "interaction_count": 3}],
    },
    "telegram_outbox.keep": {"payload": '{"chat_id": 1, "text": "ok"}'},
    "recall.newest_deep": {"after": NOW - timedelta(hours=1)},
    "recall.add_summary": {
        "row": ConversationSummaryRow(
            id=1000,
            key="k-new",
            user_id=USER,
            period_start=NOW - timedelta(hours=1),
            period_end=NOW,
            text="посіяли",
            intents=["journal"],
            message_count=2,
            source="extractive",
            created_at=NOW,
        )
    },
    "recall.delete_summaries": {"rows": []},
    # A forecast's hours are instants, not the reports' days.
    "weather.hours": {"start": NOW - timedelta(hours=1), "end": NOW + timedelta(days=1)},
    "weather.claim_warning": {"kind": "frost"},
    "weather.release_warning": {"kind": "frost"},
    "interactions.insert_many": {"rows": []},
    "learning.add_feedback": {
        "row": FeedbackRow(
            id=1000, trace_id="trace-new", user_id=USER, verdict="up", created_at=NOW
        )
    },
    "learning.proposal": {"proposal_id": 1},
    "learning.propose": {
        "intent": "greeting",
        "kind": "keyword",
        "term": "вітаю",
        "support": 3,
        "dev_before": 0.9,
        "dev_after": 0.92,
        "corrections_before": 0.5,
        "corrections_after": 0.7,
    },
    "recall.remember_answer": {
        "slot": "repeat",
        "intent": "weather",
        "subject": "погода",
        "trace_id": "t3",
        "created_at": NOW,
    },
    "recall.remembered_answer": {"slot": "repeat"},
    "recall.drop_farm_sensor_answers": {"intents": ["iot", "planning"]},
    "learning.add_learning": {"row": LearningRow(id=1000, source="negative", rule="r")},
    "learning.add_correction": {
        "row": CorrectionRow(
            id=1000,
            trace_id="trace-new",
            user_id=USER,
            source="farmer",
            text="посіяли",
            was_mode="light",
            was_intent="greeting",
            mode="light",
            intent="journal",
            crew=[],
            created_at=NOW,
        )
    },
    "learning.add_proposal": {
        "row": ProposalRow(
            id=1000,
            intent="greeting",
            kind="trigger",
            term="добридень",
            support=2,
            dev_before=0.9,
            dev_after=0.91,
            corrections_before=0.5,
            corrections_after=0.7,
            status="pending",
        )
    },
    "sensor_readings.add_token": {"token_hash": "n" * 64},
    "sensor_readings.insert_new": {
        "rows": [
            {
                "farm_id": FARM,
                "field_id": "field:north",
                "sensor_id": "p9",
                "sensor_type": "soil_moisture",
                "value": 20.0,
                "unit": "%",
                "measured_at": NOW,
                "source": "api",
            }
        ]
    },
    "sensor_watch.add_alert": {
        "row": AlertRow(
            id=1000,
            farm_id=FARM,
            field_id="field:north",
            sensor_type="temperature",
            kind="above_max",
            value=40.0,
            threshold=35.0,
            started_at=NOW,
        )
    },
    "recall.keep_answer": {
        "row": AnswerCacheRow(
            user_id=USER,
            slot="status",
            intent="weather",
            subject="погода",
            trace_id="t2",
            text="сонячно",
            created_at=NOW,
        )
    },
}
#: Further calls of one function: the optional paths its queries take.
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "farm.pending_terms": [{"farm_id": FARM}],
    "farm.pending_term": [{"lock": True}],
    "farm.draft": [{"lock": True}],
    "reporting.operations_page": [{"field_id": "field:north", "after": (DAY, 1)}],
    "reporting.plan_fact_counts": [{"field_id": "field:north"}],
    "reporting.sensor_types": [{"until": NOW}],
    "reporting.readings_page": [
        {"until": NOW, "field_id": "field:north", "after": (NOW - timedelta(hours=1), 1)}
    ],
    "sensor_buckets.reading_buckets": [{"field_id": "field:north", "by_sensor": True}],
    "sensor_buckets.count_readings": [{"field_id": "field:north"}],
    "sensor_buckets.count_buckets": [{"field_id": "field:north"}],
    "sensor_watch.probe_activity": [{"skip_sources": ["csv"]}],
    "sensor_rollups.rebuild": [{"farm_id": FARM}],
}


def repository_functions() -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for module_info in pkgutil.iter_modules(db.repositories.__path__):
        module = importlib.import_module(f"db.repositories.{module_info.name}")
        for name, function in vars(module).items():
            if (
                inspect.isfunction(function)
                and function.__module__ == module.__name__
                and not name.startswith("_")
                and next(iter(inspect.signature(function).parameters), None) == "session"
            ):
                found.append((f"{module_info.name}.{name}", function))
    return sorted(found, key=lambda item: item[0])


def calls_of(qualified: str, function: Callable[..., Any]) -> list[dict[str, Any]]:
    """The keyword arguments of each call: required parameters from the samples."""
    override = OVERRIDES.get(qualified, {})
    base: dict[str, Any] = {}
    for name, parameter in list(inspect.signature(function).parameters.items())[1:]:
        if name in override:
            base[name] = override[name]
        elif parameter.default is inspect.Parameter.empty:
            if name not in SAMPLES:
                raise LookupError(f"{qualified}: no sample for parameter {name!r} (SAMPLES)")
            base[name] = SAMPLES[name]
    return [base] + [{**base, **extra} for extra in VARIANTS.get(qualified, [])]


async def _scans_of_every_function(engine: AsyncEngine) -> list[str]:
    database = Database.of(engine)
    log = StatementLog(engine)
    problems: list[str] = []
    with log.attached():
        for qualified, function in repository_functions():
            for kwargs in calls_of(qualified, function):
                async with database.sessions() as session:
                    with log.recording() as captured:
                        result = function(session, **kwargs)
                        if inspect.isawaitable(result):
                            await result
                        await session.flush()
                    connection = await session.connection()
                    for statement in filter(explained, captured):
                        for table in await full_scans(connection, statement, GROWING):
                            if (qualified, table) not in WHOLE_BY_DESIGN:
                                problems.append(
                                    f"{qualified}: reads {table} whole: {statement.statement}"
                                )
                    await session.rollback()
    return problems


@contextlib.asynccontextmanager
async def _seeded(url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(url)
    try:
        await seed(Database.of(engine))
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
async def sqlite_engine(sqlite_url: str) -> AsyncIterator[AsyncEngine]:
    async with _seeded(sqlite_url) as engine:
        yield engine


@pytest.fixture
async def postgres_engine(migrated_postgres_url: str) -> AsyncIterator[AsyncEngine]:
    async with _seeded(migrated_postgres_url) as engine:
        yield engine


async def test_no_repository_query_reads_a_growing_table_whole_sqlite(
    sqlite_engine: AsyncEngine,
) -> None:
    assert await _scans_of_every_function(sqlite_engine) == []


@pytest.mark.postgres
async def test_no_repository_query_reads_a_growing_table_whole_postgres(
    postgres_engine: AsyncEngine,
) -> None:
    assert await _scans_of_every_function(postgres_engine) == []


async def _control(engine: AsyncEngine) -> tuple[set[str], set[str]]:
    """A query on an unindexed column is caught; one on an index is not."""
    log = StatementLog(engine)
    found = []
    with log.attached():
        for query in (
            select(InteractionRow.id).where(InteractionRow.reason == "r"),
            select(InteractionRow.id).where(InteractionRow.user_id == USER),
        ):
            async with Database.of(engine).sessions() as session:
                with log.recording() as captured:
                    await session.execute(query)
                connection = await session.connection()
                found.append(
                    await full_scans(connection, next(filter(explained, captured)), GROWING)
                )
    return found[0], found[1]


async def test_the_check_catches_a_full_scan_sqlite(sqlite_engine: AsyncEngine) -> None:
    assert await _control(sqlite_engine) == ({"interactions"}, set())


@pytest.mark.postgres
async def test_the_check_catches_a_full_scan_postgres(postgres_engine: AsyncEngine) -> None:
    assert await _control(postgres_engine) == ({"interactions"}, set())


def test_every_repository_function_is_called() -> None:
    functions = repository_functions()
    assert len(functions) > 90  # the walk finds the modules' functions
    for qualified, function in functions:
        assert calls_of(qualified, function)  # raises naming a parameter without a sample
    # Names of other origins (pipeline.…, bot.…) are the session test's.
    repository_names = {name for name, _ in WHOLE_BY_DESIGN if not name.startswith(OTHERS)}
    stale = set(OVERRIDES) | set(VARIANTS) | repository_names
    assert stale <= {qualified for qualified, _ in functions}


def test_every_foreign_key_leads_an_index() -> None:
    """Deleting a farm (ON DELETE CASCADE) or a pending term (SET NULL) finds the
    children through an index on their key, not a scan of each child table."""
    missing = []
    for table in Base.metadata.sorted_tables:
        leading = [tuple(c.name for c in index.columns) for index in table.indexes]
        leading += [
            tuple(c.name for c in constraint.columns)
            for constraint in table.constraints
            if isinstance(constraint, PrimaryKeyConstraint | UniqueConstraint)
        ]
        for key in table.foreign_key_constraints:
            columns = tuple(c.name for c in key.columns)
            if not any(cols[: len(columns)] == columns for cols in leading):
                missing.append(f"{table.name}({', '.join(columns)})")
    assert missing == []
