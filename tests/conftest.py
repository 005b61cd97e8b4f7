"""Shared fixtures: a migrated database (SQLite file or a throwaway PostgreSQL
database), settings, the pipeline. No test needs a token, the internet or an LLM.

Speed without sharing state: the schema is migrated once per session into a
template (a SQLite file, a PostgreSQL template database) and every test gets its own
copy; the catalog and the rulebook (classifier, vocabularies, crew, prompts) are
immutable, so they are loaded once per session and handed to every pipeline a test
builds."""

from __future__ import annotations

from pipeline.crew.env import silence_crewai

silence_crewai()  # before any test module can import CrewAI

import asyncio  # noqa: E402
import contextlib  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import uuid  # noqa: E402
from collections.abc import AsyncIterator, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from sqlalchemy import text  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker  # noqa: E402

from bot.config import AgxSettings, Settings, StepanSettings  # noqa: E402
from bot.wiring.factory import build_pipeline  # noqa: E402
from db.engine import create_engine, create_session_factory  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.clock import Clock, utcnow  # noqa: E402
from pipeline.handle import Pipeline  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.memory import Memory, build_memory  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from tests.shared import catalog as shared_catalog  # noqa: E402
from tests.shared import rulebook  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
POSTGRES_ADMIN_URL = os.environ.get(
    "STEPAN_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)


def make_settings(database_url: str, **agx: object) -> Settings:
    # No forecast source: a test never reaches the internet (the weather tests point
    # STEPAN_WEATHER_URL at the fake, tests/fakes/open_meteo.py).
    return Settings(
        stepan=StepanSettings(_env_file=None, database_url=database_url, weather_url="off"),  # type: ignore[call-arg]
        agx=AgxSettings(_env_file=None, **agx),  # type: ignore[call-arg]
    )


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session; tests get copies of it."""
    path = tmp_path_factory.mktemp("template") / "stepan.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    # Everything into the main file (WAL mode), so copying that one file is enough.
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    """A migrated SQLite database of this test's own (a copy of the session template)."""
    path = tmp_path / "stepan.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


async def _postgres_available() -> str | None:
    engine = create_engine(POSTGRES_ADMIN_URL)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        await engine.dispose()


async def _admin(statement: str) -> None:
    engine = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


def _require_postgres(problem: str | None) -> None:
    """In CI a missing server is a failure; on a laptop without PostgreSQL the test is
    skipped, saying why."""
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is required in CI: {problem}")
    pytest.skip(reason=f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}: {problem}")


def _postgres_database_url(name: str) -> str:
    return POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


@contextlib.asynccontextmanager
async def _throwaway_database(template: str | None = None) -> AsyncIterator[str]:
    """A database of its own (unique name: several test runs share the server)."""
    name = f"stepan_test_{uuid.uuid4().hex[:10]}"
    copy_of = f' TEMPLATE "{template}"' if template else ""
    await _admin(f'CREATE DATABASE "{name}"{copy_of}')
    try:
        yield _postgres_database_url(name)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def postgres_url() -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL database, dropped afterwards (the migration tests)."""
    _require_postgres(await _postgres_available())
    async with _throwaway_database() as url:
        yield url


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """A PostgreSQL database migrated to head once per session, used only as the
    template of each test's copy (CREATE DATABASE ... TEMPLATE, a file-level copy)."""
    _require_postgres(asyncio.run(_postgres_available()))
    name = f"stepan_template_{uuid.uuid4().hex[:10]}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        # upgrade() disposes of its engine: a template must have no open connection.
        upgrade(_postgres_database_url(name))
        yield name
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def migrated_postgres_url(postgres_template: str) -> AsyncIterator[str]:
    """A migrated PostgreSQL database of this test's own, dropped afterwards."""
    async with _throwaway_database(postgres_template) as url:
        yield url


@pytest.fixture
async def engine(sqlite_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(sqlite_url)
    yield engine
    await engine.dispose()


@pytest.fixture
def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(engine)


@pytest.fixture
def db(engine: AsyncEngine) -> Database:
    """The unit of work the services under test open their transactions with."""
    return Database.of(engine)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return shared_catalog()


@pytest.fixture(scope="session")
def rules() -> Rulebook:
    """Every rules file, read once per test session (as the factory reads them once)."""
    return rulebook()


@pytest.fixture
def settings(sqlite_url: str) -> Settings:
    return make_settings(sqlite_url)


@pytest.fixture
def memory(db: Database) -> Memory:
    """The memory services (SQL only); the ``pipeline`` fixture uses these same ones."""
    return build_memory(db)


@pytest.fixture
def pipeline_clock() -> Clock:
    """The pipeline's clock: the real one, unless a test module overrides this fixture
    (the deep-path tests live on the day their seeded farm data is about)."""
    return utcnow


@pytest.fixture
def pipeline(
    settings: Settings,
    db: Database,
    catalog: Catalog,
    rules: Rulebook,
    memory: Memory,
    pipeline_clock: Clock,
) -> Pipeline:
    return build_pipeline(settings, db, catalog, memory=memory, rules=rules, clock=pipeline_clock)


@pytest.fixture
def repo_root() -> Iterator[Path]:
    yield REPO
