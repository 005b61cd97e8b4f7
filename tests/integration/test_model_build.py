"""`stepan model build` (issue 25 point 2): the corrections operators stored train a
candidate, which replaces the model in force only when it routes the held-out
examples better; without anything new the file stays as it was."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from bot.cli.model import build_model
from db.engine import create_engine
from db.models import CorrectionRow
from db.uow import Database
from pipeline.classifier.model import PACKAGED_MODEL, IntentModel
from pipeline.text import normalize

#: Words that say nothing of a fault: only the corrections teach that «диспетчерська»
#: (the farm's operations centre) is about the platform.
TAILS = (
    "знову", "з самого ранку", "сьогодні теж", "вже годину", "у мене",
    "от і зараз", "після обіду", "цілий день", "як завжди", "в неділю",
)  # fmt: skip


async def store_corrections(url: str) -> None:
    engine = create_engine(url)
    try:
        async with Database.of(engine).write() as session:
            session.add_all(
                CorrectionRow(
                    trace_id=f"c{n}", user_id="tg:5", source="operator",
                    text=f"диспетчерська {tail}", was_mode="deep", was_intent="general",
                    mode="deep", intent="platform", crew=["platform"],
                )
                for n, tail in enumerate(TAILS)
            )  # fmt: skip
    finally:
        await engine.dispose()


async def build(url: str, target: Path, *, force: bool = False) -> dict[str, object]:
    out = io.StringIO()
    assert await build_model(url, target, force=force, as_json=True, out=out) == 0
    return dict(json.loads(out.getvalue().splitlines()[-1]))


async def test_a_better_model_is_written_and_an_equal_one_is_not(
    sqlite_url: str, tmp_path: Path
) -> None:
    target = tmp_path / "intent_model.npz"
    shutil.copyfile(PACKAGED_MODEL, target)  # the model in force: the packaged one
    written_at = target.stat().st_mtime_ns
    again = await build(sqlite_url, target)  # nothing new: not better, not written
    assert again["written"] is False and again["better"] is False
    assert target.stat().st_mtime_ns == written_at
    await store_corrections(sqlite_url)
    taught = await build(sqlite_url, target)
    assert taught["corrections"] == len(TAILS)
    assert taught["better"] is True and taught["written"] is True
    guess = IntentModel.load(target).guess(normalize("диспетчерська зранку"))
    assert guess is not None and guess.intent == "platform"


async def test_no_database_file_is_created_for_the_corrections(tmp_path: Path) -> None:
    missing = tmp_path / "data" / "stepan.db"
    out = io.StringIO()
    target = tmp_path / "m.npz"
    code = await build_model(
        f"sqlite+aiosqlite:///{missing}", target, force=True, as_json=False, out=out
    )
    assert code == 0
    assert not missing.exists()
    assert "corpora only" in out.getvalue()
    assert IntentModel.load(target).size > 1000


async def test_a_target_that_cannot_be_written_is_said_not_a_traceback(tmp_path: Path) -> None:
    """A folder that is a file (as good as read-only, even for root)."""
    blocker = tmp_path / "models"
    blocker.write_text("not a folder")
    out = io.StringIO()
    code = await build_model(
        f"sqlite+aiosqlite:///{tmp_path / 'none.db'}", blocker / "m.npz",
        force=True, as_json=False, out=out,
    )  # fmt: skip
    assert code == 1
    assert "STEPAN_INTENT_MODEL" in out.getvalue()
    assert blocker.read_text() == "not a folder"
