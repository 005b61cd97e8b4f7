"""Transactions have one owner (docs/ARCHITECTURE.md): repositories take a session
and never end its transaction; handlers never touch repositories or sessions."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRANSACTION_END = re.compile(r"\b(commit|rollback)\(")


def _sources(folder: str) -> list[Path]:
    files = sorted((REPO / folder).rglob("*.py"))
    assert files, f"no sources under {folder}"
    return files


def test_repositories_never_commit_or_roll_back() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in _sources("db/repositories")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if TRANSACTION_END.search(line)
    ]
    assert offenders == []


def test_handlers_never_touch_repositories_or_sessions() -> None:
    forbidden = re.compile(r"db\.repositories|AsyncSession|async_sessionmaker|\.memory\.")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in _sources("bot/handlers")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if forbidden.search(line)
    ]
    assert offenders == []


def test_no_session_is_built_from_another_sessions_bind() -> None:
    forbidden = re.compile(r"(AsyncSession|async_sessionmaker)\([^)]*\.bind\b")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("bot", "db", "pipeline")
        for path in _sources(folder)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if forbidden.search(line)
    ]
    assert offenders == []


#: Ending a session's or a connection's transaction (not a domain "rollback" such as
#: RuleOverlays.rollback(), which undoes a rules version).
SESSION_END = re.compile(r"\b\w*(session|conn|connection|transaction)\.(commit|rollback)\(")


#: db/schema.py: the readiness probe recovers its own read after a failed statement
#: (no alembic_version table) so it can go on checking the tables.
RECOVERS_ITS_READ = {"db/schema.py"}


def test_only_the_unit_of_work_ends_transactions() -> None:
    """bot/, pipeline/ and db/ end a transaction only in db/uow.py (the interaction
    writer's group commit goes through Database.write() as well)."""
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("bot", "db", "pipeline")
        for path in _sources(folder)
        if path.relative_to(REPO).as_posix() not in RECOVERS_ITS_READ | {"db/uow.py"}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SESSION_END.search(line)
    ]
    assert offenders == []
