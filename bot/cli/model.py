"""`stepan model build [--force] [--json]`: retrain the classifier's learned fallback
from the labelled corpora and the operators' corrections, and keep it only if it
routes the held-out examples better (pipeline/learning/model_training.py,
docs/learning.md). Imports scikit-learn, which the bot itself never does."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import TextIO

from db.engine import create_engine
from db.file_watch import sqlite_file
from db.repositories import learning as repo
from db.uow import Database
from pipeline.classifier.model import PACKAGED_MODEL
from pipeline.learning.model_training import Build, build, repository_examples
from pipeline.learning.proposals import Example, stored_examples
from pipeline.rulebook import Rulebook

logger = logging.getLogger(__name__)


async def build_model(
    database_url: str, target: Path | None, *, force: bool, as_json: bool, out: TextIO
) -> int:
    path = target or PACKAGED_MODEL
    try:  # said before the training, not after it
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _unwritable(path, exc, out)
    corrections = await _corrections(database_url, out)
    rules = Rulebook.load(model=None).classifier
    result = await asyncio.to_thread(build, rules, repository_examples(), corrections)
    write = result.better or force or not path.exists()
    if write:
        try:
            result.model.save(path)
        except OSError as exc:  # an installed package's folder is often read-only
            return _unwritable(path, exc, out)
    if as_json:
        print(json.dumps({**result.as_dict(), "written": write, "path": str(path)}), file=out)
    else:
        print(_report(result, path, written=write), file=out)
    return 0


async def _corrections(database_url: str, out: TextIO) -> list[Example]:
    """The corrections stored by the learning loop; none (said) when the database
    cannot be read (a SQLite file that is not there is not created)."""
    path = sqlite_file(database_url)
    if path is not None and not path.exists():
        print(f"stepan: no database at {path}: corpora only", file=out)
        return []
    engine = create_engine(database_url)
    try:
        async with Database.of(engine).read() as session:
            rows = await repo.correction_examples(session)
    except Exception as exc:  # an unmigrated or unreachable database: corpora only
        print(f"stepan: no corrections read ({type(exc).__name__}): corpora only", file=out)
        return []
    finally:
        await engine.dispose()
    return stored_examples(rows)


def _unwritable(path: Path, exc: OSError, out: TextIO) -> int:
    reason = exc.strerror or type(exc).__name__
    print(
        f"stepan: cannot write {path} ({reason}): set STEPAN_INTENT_MODEL to a writable"
        " file and run again",
        file=out,
    )
    return 1


def _report(result: Build, path: Path, *, written: bool) -> str:
    verdict = (
        f"written to {path}"
        if written
        else f"not better than the model in force: {path} unchanged (--force writes it)"
    )
    return (
        f"stepan: intent model from {result.examples} examples "
        f"({result.corrections} corrections), {result.model.size} features\n"
        f"  held-out intent accuracy ({result.held_out} examples): rules alone "
        f"{result.rules_only:.3f}, with the model in force {result.before:.3f}, "
        f"with the new one {result.after:.3f}\n"
        f"  {verdict}"
    )
