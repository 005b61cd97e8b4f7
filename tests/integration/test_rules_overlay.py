"""The routing-rules overlay: an approved term changes routing without a restart, on
this instance at once and on another within the refresh interval; /rules rollback
undoes it; 3 versions are kept."""

from __future__ import annotations

from db.uow import Database
from pipeline.intents import Intent
from pipeline.learning.overlay import (
    KEEP_VERSIONS,
    REFRESH_S,
    LiveClassifier,
    OverlayTerm,
    RuleOverlays,
)
from pipeline.rulebook import Rulebook
from pipeline.types import ClassifierContext

#: The issue's own example: a real farm record the packaged rules do not know.
MESSAGE = "розкидали селітру на 9-му, по 120 кило"
TERM = OverlayTerm(Intent.RECORDING, "trigger", "розкидали")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _intent(live: LiveClassifier) -> Intent:
    return live.classify(MESSAGE, ClassifierContext()).intent


async def test_approve_and_rollback_change_routing_without_a_restart(
    db: Database, rules: Rulebook
) -> None:
    here = LiveClassifier(rules.classifier, rules.grammar, db)
    clock = Clock()
    there = LiveClassifier(rules.classifier, rules.grammar, db, monotonic=clock)
    await here.refresh()
    await there.refresh()
    before = _intent(here)
    assert before != Intent.RECORDING and _intent(there) == before

    overlays = RuleOverlays(db, here)
    version = await overlays.add([TERM], by="tg:1")
    assert here.version == version
    assert _intent(here) == Intent.RECORDING  # this instance: at once
    await there.refresh()
    assert _intent(there) == before  # another instance: not before its interval
    clock.now += REFRESH_S + 1
    await there.refresh()
    assert there.version == version and _intent(there) == Intent.RECORDING

    assert await overlays.rollback() == (version, None)
    assert here.version is None and _intent(here) == before
    clock.now += REFRESH_S + 1
    await there.refresh()
    assert _intent(there) == before
    assert await overlays.rollback() == (None, None)  # nothing left to undo


async def test_versions_accumulate_terms_and_only_three_are_kept(
    db: Database, rules: Rulebook
) -> None:
    here = LiveClassifier(rules.classifier, rules.grammar, db)
    overlays = RuleOverlays(db, here)
    words = ["розкидали", "занотуй", "внесли", "розсіяли", "обробили"]
    ids = [
        await overlays.add([OverlayTerm(Intent.RECORDING, "keyword", w)], by="tg:1") for w in words
    ]
    versions = await overlays.versions()
    assert [v.id for v in versions] == ids[::-1][:KEEP_VERSIONS]
    assert [t.term for t in versions[0].terms] == words  # each version: all terms so far
    undone, now = await overlays.rollback()
    assert (undone, now) == (ids[-1], ids[-2])
    assert here.version == ids[-2]
    assert [t.term for t in (await overlays.versions())[1].terms] == words[:-1]
    # A new approval after a rollback drops the rolled-back version for good.
    newest = await overlays.add([OverlayTerm(Intent.HELP, "trigger", "функції")], by="tg:1")
    listed = await overlays.versions()
    assert [v.id for v in listed] == [newest, ids[-2], ids[-3]]
    assert not any(v.rolled_back for v in listed)


async def test_an_overlay_that_does_not_compile_keeps_the_rules(
    db: Database, rules: Rulebook
) -> None:
    from db.repositories import learning as repo

    here = LiveClassifier(rules.classifier, rules.grammar, db)
    async with db.write() as session:
        await repo.add_overlay(
            session, [{"intent": "recording", "kind": "bogus", "term": "x"}], "tg:1", None, 3
        )
    await here.refresh(force=True)
    assert here.version is None
    assert _intent(here) != Intent.RECORDING
