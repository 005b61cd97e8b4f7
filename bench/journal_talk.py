"""The journal in conversation: sequences of messages and button presses, scored by
the journal's final state (issue 26 point 7).

    python bench/journal.py --conversations [FILE] [--json] [--verbose]

The file is JSON lines. The first line describes the farm and the day, as the
journal corpus's does (``{"today", "farm": {"fields": [...], "crops": [...]}}``);
then one conversation a line::

    {"id": "c01", "steps": [{"say": "внесли селітру 150 кг/га на Леваді"},
     {"press": "yes"}, {"say": "ой, не 150, а 120"}, {"press": "yes"}],
     "journal": [{"type": "fertilising", "field": "Левада", "rate": 120, ...}]}

A step says a message, presses a button of the last reply that had buttons
(``yes``: its first; ``no``: the one that cancels or drops; ``undo``: ↩️), or moves the
farm's day (``{"day": "2026-05-15"}``). ``journal`` lists the entries expected at
the end (deleted ones left out), each with the keys it checks: type, field (the
field's name), product, rate, rate_unit, area_ha, amount, date, status.

Scores: ``exact`` (the final journal is the expected one, entry for entry) and
``unintended`` (conversations whose journal holds a value neither expected nor the
one first written: something changed that nobody asked to change). Every
conversation runs through ``Pipeline.handle_message`` and ``handle_action`` on its
own fresh user and farm (its fields, and their synonyms as dictionary terms) of one
migrated SQLite database, without an LLM.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from datetime import time as dt_time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bench.offline import offline_pipeline
from db.models import DictionaryTermRow, FarmProfileRow, FieldRow, OperationRow
from db.uow import Database
from pipeline.actions import JournalAction, JournalVerb
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook
from pipeline.text import fold
from pipeline.types import Incoming, Reply

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONVERSATIONS = REPO / "bench" / "data" / "journal-conversations-dev.jsonl"
KYIV = ZoneInfo("Europe/Kyiv")
KEYS = ("type", "field", "product", "rate", "rate_unit", "area_ha", "amount", "date", "status")
_NO = frozenset({JournalVerb.CANCEL, JournalVerb.DROP})


@dataclass
class Conversation:
    id: str
    steps: list[dict[str, Any]]
    journal: list[dict[str, Any]]


@dataclass
class Outcome:
    conversation: Conversation
    final: list[dict[str, Any]]
    exact: bool
    unintended: bool
    replies: list[str] = field(default_factory=list)


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def day(self, day: str) -> None:
        self.now = datetime.combine(date.fromisoformat(day), dt_time(10), tzinfo=KYIV).astimezone(
            UTC
        )


def load(path: Path) -> tuple[dict[str, Any], list[Conversation]]:
    lines = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    head, rows = lines[0], lines[1:]
    return head, [Conversation(row["id"], row["steps"], row["journal"]) for row in rows]


def _view(row: OperationRow, names: dict[str, str]) -> dict[str, Any]:
    return {
        "type": row.op_type,
        "field": names.get(row.field_id or "", row.field_id),
        "product": row.product,
        "rate": row.rate,
        "rate_unit": row.rate_unit,
        "area_ha": row.area_ha,
        "amount": row.amount,
        "date": row.op_date.isoformat(),
        "status": row.status,
        "id": row.id,
    }


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return abs(expected - got) <= 1e-3 * max(1.0, abs(expected))
    if isinstance(expected, str) and isinstance(got, str):
        return fold(expected) == fold(got)
    return bool(expected == got)


def _matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    return all(_same(value, got.get(key)) for key, value in expected.items() if key in KEYS)


def exact(expected: Sequence[dict[str, Any]], final: Sequence[dict[str, Any]]) -> bool:
    if len(expected) != len(final):
        return False
    left = list(final)
    for want in expected:
        hit = next((got for got in left if _matches(want, got)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True


def unintended(
    expected: Sequence[dict[str, Any]],
    final: Sequence[dict[str, Any]],
    first: dict[int, dict[str, Any]],
) -> bool:
    """An entry holds a value that is neither expected nor the one first written."""
    for got in final:
        wants = [w for w in expected if w.get("type") == got["type"]] or list(expected)
        original = first.get(got["id"], got)
        for key in KEYS:
            value = got.get(key)
            if _same(original.get(key), value):
                continue
            if not any(key in w and _same(w[key], value) for w in wants):
                return True
    return False


class Runner:
    def __init__(
        self, pipeline: Pipeline, db: Database, clock: Clock, head: dict[str, Any]
    ) -> None:
        self.pipeline, self.db, self.clock, self.head = pipeline, db, clock, head

    async def farm(self, user: str, chat: int) -> dict[str, str]:
        await self.pipeline.handle_message(Incoming(user, chat, "привіт", f"{user}-hello"))
        names: dict[str, str] = {}
        async with self.db.write() as session:
            farm = (
                await session.execute(select(FarmProfileRow).where(FarmProfileRow.user_id == user))
            ).scalar_one()
            for n, spec in enumerate(self.head["farm"]["fields"]):
                field_id = f"field:f{n}"
                names[field_id] = spec["name"]
                session.add(FieldRow(farm_id=farm.farm_id, field_id=field_id, name=spec["name"],
                                     area_ha=spec.get("area_ha")))  # fmt: skip
                if spec.get("synonyms"):
                    # The farm's other names of the field, as an operator's review keeps them.
                    session.add(DictionaryTermRow(farm_id=farm.farm_id, kind="field",
                                                  canonical_id=field_id, display=spec["name"],
                                                  synonyms=list(spec["synonyms"])))  # fmt: skip
        return names

    async def journal(self, user: str, names: dict[str, str]) -> list[dict[str, Any]]:
        async with self.db.read() as session:
            rows = (
                await session.execute(select(OperationRow).where(OperationRow.author == user))
            ).scalars()
            return [_view(row, names) for row in rows]

    async def run(self, n: int, conversation: Conversation) -> Outcome:
        user, chat = f"c{n}", 1000 + n
        self.clock.day(self.head["today"])
        names = await self.farm(user, chat)
        first: dict[int, dict[str, Any]] = {}
        shown: Reply | None = None
        undo: Reply | None = None
        replies: list[str] = []
        for k, step in enumerate(conversation.steps):
            if "day" in step:
                self.clock.day(step["day"])
                continue
            incoming = Incoming(user, chat, step.get("say", ""), f"{user}-{k}", message_id=k + 1,
                                language_code="uk")  # fmt: skip
            if "say" in step:
                reply = await self.pipeline.handle_message(incoming)
            else:
                action = _button(undo if step["press"] == "undo" else shown, step["press"])
                reply = (
                    await self.pipeline.handle_action(action, incoming)
                    if action
                    else Reply("(no such button)")
                )
            replies.append(reply.text)
            # "yes" and "no" press the last card (a double tap presses it again); "undo"
            # the last ↩️.
            if _button(reply, "yes") is not None:
                shown = reply
            if _button(reply, "undo") is not None:
                undo = reply
            for entry in await self.journal(user, names):
                first.setdefault(entry["id"], entry)
        final = await self.journal(user, names)
        expected = conversation.journal
        return Outcome(
            conversation, final, exact(expected, final), unintended(expected, final, first), replies
        )


def _button(reply: Reply | None, which: str) -> object | None:
    if reply is None:
        return None
    actions = [b.action for row in reply.buttons for b in row]
    journal = [a for a in actions if isinstance(a, JournalAction)]
    if which == "yes":
        not_undo = [
            a for a in actions if not (isinstance(a, JournalAction) and a.verb is JournalVerb.UNDO)
        ]
        return not_undo[0] if not_undo else None
    if which == "no":
        return next((a for a in journal if a.verb in _NO), None)
    if which == "undo":
        return next((a for a in journal if a.verb is JournalVerb.UNDO), None)
    return None


async def run_all(path: Path) -> list[Outcome]:
    head, conversations = load(path)
    rules, catalog = Rulebook.load(), Catalog.load()
    clock = Clock()
    async with offline_pipeline(rules, catalog, clock, "talk.db") as offline:
        runner = Runner(offline.pipeline, offline.db, clock, head)
        return [await runner.run(n, c) for n, c in enumerate(conversations)]


def report(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    total = len(outcomes)
    return {
        "conversations": total,
        "exact": round(sum(o.exact for o in outcomes) / max(1, total), 3),
        "unintended": sum(o.unintended for o in outcomes),
        "misses": [o.conversation.id for o in outcomes if not o.exact],
    }


def main(path: Path, *, as_json: bool, verbose: bool) -> int:
    logging.basicConfig(level=logging.ERROR)
    outcomes = asyncio.run(run_all(path))
    result = report(outcomes) | {"corpus": str(path)}
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"journal conversations: {path}")
    print(f"  final state exact: {result['exact']:.3f} of {result['conversations']}")
    print(f"  unintended changes: {result['unintended']}")
    for outcome in outcomes:
        if outcome.exact and not verbose:
            continue
        mark = "ok " if outcome.exact else "MISS"
        final = [{k: v for k, v in e.items() if k != "id"} for e in outcome.final]
        print(f"  {mark} {outcome.conversation.id}: {json.dumps(final, ensure_ascii=False)}")
        if not outcome.exact:
            for text in outcome.replies:
                print("       > " + text.replace("\n", " | ")[:220])
    return 0
