"""Row states are closed sets (issue 24 point 5): each state, status, outcome and kind
column's CHECK constraint admits exactly its enum's values (db/states.py), and the
database refuses any other value, on SQLite and PostgreSQL. Migration 0023 added the
row states' constraints, 0024 those of the other closed sets (kinds, sources, modes,
verdicts ...)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import get_args

import pytest
from sqlalchemy import CheckConstraint, inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from db.engine import create_engine
from db.migrate import downgrade, upgrade
from db.models import (
    AnswerCacheRow,
    Base,
    ConversationSummaryRow,
    FeedbackRow,
    HandoffRow,
    OperationDraftRow,
    WeatherWarningRow,
)
from db.repositories.outbox import Operation
from db.states import (
    CHECKED_COLUMNS,
    AnswerSlot,
    DraftStatus,
    FeedbackVerdict,
    HandoffDirection,
    OutboxOperation,
    PrivacyLevel,
    RouteMode,
    SummarySource,
    TermKind,
    WeatherWarningKind,
    allowed_values_sql,
)
from db.uow import Database
from pipeline.farm.words.name_match import Kind
from pipeline.peers.contract import PrivacyLevel as ContractPrivacy
from pipeline.types import Mode
from tests.query_plans_seed import FARM, NOW, USER, seed

BELOW = "0022_outbox_reply_order"
#: Before the closed sets' constraints (0024).
BELOW_CLOSED_SETS = "0023_row_state_checks"


def _constraint_values(connection: Connection) -> dict[str, set[str]]:
    """Every ``ck_`` constraint in the database: its name and the quoted values in it."""
    inspector = inspect(connection)
    found: dict[str, set[str]] = {}
    for table in inspector.get_table_names():
        for check in inspector.get_check_constraints(table):
            if check["name"] and check["name"].startswith("ck_"):
                found[check["name"]] = set(re.findall(r"'([^']*)'", check["sqltext"]))
    return found


async def _database_constraints(url: str) -> dict[str, set[str]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_constraint_values)
    finally:
        await engine.dispose()


def _expected() -> dict[str, set[str]]:
    return {
        f"ck_{table}_{column}": {member.value for member in values}
        for table, column, values in CHECKED_COLUMNS
    }


async def _seed_every_checked_table(database: Database) -> None:
    """The plans' seed, and a row in the three tables it leaves empty."""
    await seed(database)
    async with database.write() as session:
        session.add_all(
            [
                AnswerCacheRow(user_id=USER, slot=AnswerSlot.REPEAT, intent="greeting",
                               subject="s", trace_id="trace-1", text="t", created_at=NOW),
                ConversationSummaryRow(key="k" * 36, user_id=USER, period_start=NOW,
                                       period_end=NOW, text="t", source=SummarySource.LLM),
                WeatherWarningRow(farm_id=FARM, kind=WeatherWarningKind.FROST, day=NOW.date(),
                                  created_at=NOW),
            ]
        )  # fmt: skip


async def _bad_values_refused(url: str) -> None:
    engine = create_engine(url)
    try:
        database = Database.of(engine)
        await _seed_every_checked_table(database)
        for table, column, _values in CHECKED_COLUMNS:
            count = f"SELECT count(*) FROM {table}"
            # Cut to the column's length: PostgreSQL refuses a longer one by its length.
            bad = "bogus"[: Base.metadata.tables[table].c[column].type.length]
            async with engine.connect() as connection:
                assert (await connection.execute(text(count))).scalar_one() > 0, table
                with pytest.raises(IntegrityError):
                    await connection.execute(text(f"UPDATE {table} SET {column} = '{bad}'"))
                await connection.rollback()
        with pytest.raises(IntegrityError):
            async with database.write() as session:
                session.add(
                    OperationDraftRow(
                        user_id=USER, farm_id=FARM, chat_id=1, payload={}, status="bogus"
                    )
                )
        async with database.write() as session:
            session.add(
                OperationDraftRow(
                    user_id=USER, farm_id=FARM, chat_id=1, payload={}, status=DraftStatus.WRITTEN
                )
            )
        await _closed_sets_through_the_orm(database)
    finally:
        await engine.dispose()


async def _closed_sets_through_the_orm(database: Database) -> None:
    """A row of the closed sets' tables with a bad value is refused, its members kept."""
    with pytest.raises(IntegrityError):
        async with database.write() as session:
            session.add(FeedbackRow(trace_id="trace-2", user_id=USER, verdict="meh"))
    with pytest.raises(IntegrityError):
        async with database.write() as session:
            session.add(HandoffRow(direction="up", peer="vet", domain="veterinary", language="uk"))
    async with database.write() as session:
        session.add_all(
            [
                FeedbackRow(trace_id="trace-2", user_id=USER, verdict=FeedbackVerdict.FIX),
                HandoffRow(direction=HandoffDirection.IN, peer="vet", domain="veterinary",
                           language="uk", privacy_level=PrivacyLevel.TEAM),
            ]
        )  # fmt: skip


def test_the_enums_match_the_pipelines_literal_types() -> None:
    """The pipeline names some of these sets as Literal types: the same values."""
    assert set(get_args(Kind)) == set(TermKind)
    assert set(get_args(Mode)) == set(RouteMode)
    assert set(get_args(ContractPrivacy)) == set(PrivacyLevel)
    assert set(get_args(Operation)) == set(OutboxOperation)


def test_every_model_constraint_lists_its_enum() -> None:
    for table, column, values in CHECKED_COLUMNS:
        checks = {
            c.name: str(c.sqltext)
            for c in Base.metadata.tables[table].constraints
            if isinstance(c, CheckConstraint)
        }
        assert checks.get(f"ck_{table}_{column}") == allowed_values_sql(column, values)
        # Every value fits its column (the String's length, kept as it was).
        length = Base.metadata.tables[table].c[column].type.length
        assert length is not None and max(len(member) for member in values) <= length


async def test_migrated_constraints_admit_each_enum_sqlite(sqlite_url: str) -> None:
    assert await _database_constraints(sqlite_url) == _expected()


@pytest.mark.postgres
async def test_migrated_constraints_admit_each_enum_postgres(migrated_postgres_url: str) -> None:
    assert await _database_constraints(migrated_postgres_url) == _expected()


async def test_bad_states_are_refused_sqlite(sqlite_url: str) -> None:
    await _bad_values_refused(sqlite_url)


@pytest.mark.postgres
async def test_bad_states_are_refused_postgres(migrated_postgres_url: str) -> None:
    await _bad_values_refused(migrated_postgres_url)


async def test_the_downgrade_drops_every_constraint_sqlite(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url)
    await asyncio.to_thread(downgrade, url, BELOW)
    assert await _database_constraints(url) == {}


async def test_the_upgrade_refuses_a_value_outside_the_set(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url, BELOW)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text("INSERT INTO job_runs (job_id, last_outcome, runs) VALUES ('j', 'boom', 0)")
            )
    finally:
        await engine.dispose()
    with pytest.raises(RuntimeError, match=r"job_runs\.last_outcome: 'boom'"):
        await asyncio.to_thread(upgrade, url)


async def test_the_closed_sets_upgrade_refuses_a_value_outside_the_set(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url, BELOW_CLOSED_SETS)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO handoffs (direction, peer, domain, partial, language, sent) "
                    "VALUES ('sideways', 'vet', 'veterinary', false, 'uk', false)"
                )
            )
    finally:
        await engine.dispose()
    with pytest.raises(RuntimeError, match=r"0024_closed_set_checks: .*handoffs\.direction"):
        await asyncio.to_thread(upgrade, url)


async def test_the_downgrade_to_0023_keeps_only_the_row_states(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url)
    await asyncio.to_thread(downgrade, url, BELOW_CLOSED_SETS)
    states = {"ck_pending_terms_status", "ck_operations_status", "ck_alerts_kind"}
    kept = await _database_constraints(url)
    assert states <= set(kept)
    assert "ck_handoffs_direction" not in kept and "ck_interactions_mode" not in kept
    assert len(kept) == 12


async def _term_links(url: str) -> list[tuple[int, int | None]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(
                text("SELECT id, pending_term_id FROM operations ORDER BY id")
            )
            return [(int(id_), term) for id_, term in rows.all()]
    finally:
        await engine.dispose()


async def test_the_sqlite_copy_keeps_the_operations_term_links(tmp_path: Path) -> None:
    """Batch mode drops pending_terms; ON DELETE SET NULL would clear the links."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'stepan.db'}"
    await asyncio.to_thread(upgrade, url)
    engine = create_engine(url)
    try:
        await seed(Database.of(engine))
    finally:
        await engine.dispose()
    links = await _term_links(url)
    assert any(term is not None for _id, term in links)
    await asyncio.to_thread(downgrade, url, BELOW)
    assert await _term_links(url) == links
    await asyncio.to_thread(upgrade, url)
    assert await _term_links(url) == links
