"""The learning loop's figure (issue 13 point 7): routing accuracy on held-out
messages before and after the nightly job's approved proposals, day by day.

    python bench/learning.py [--days D] [--held-out F] [--seed S] [--messages N] [--json]

The labelled set is one the classifier was not tuned on: the farm records of the
journal benchmark (``bench/data/journal-dev.jsonl`` and ``journal-fresh.jsonl``,
``record: true``; their right intent is ``recording``, or ``multi_ops`` for several
operations in one message); ``--messages`` takes only the first N of the shuffled
set (a quick run, as the test does). A shuffled ``--held-out`` part is kept aside; the rest
arrives over ``--days`` days. Each day, every message is routed by the rules in force
(``LiveClassifier``: the packaged rules plus the overlay) and a simulated operator
corrects each misrouted one (a ``corrections`` row, as the 🔀 button stores it).
Each night the real ``NightlyJob`` runs on the temp database (proposals verified on
the packaged dev corpus and all corrections) and the operator approves every
proposal it offers (``RuleOverlays.decide``), each a new overlay version. Held-out
accuracy is measured for every version.

``--json`` prints {"accuracy_before", "accuracy_after", "versions", "monotonic",
"per_version", "dev_before", "dev_after", "held_out", "corrections"}; ``monotonic``
is true when held-out accuracy never falls from one approved version to the next.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from db.models import CorrectionRow  # noqa: E402
from db.uow import Database  # noqa: E402
from pipeline.intents import Intent  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.learning.nightly import NightlyJob  # noqa: E402
from pipeline.learning.overlay import LiveClassifier, RuleOverlays  # noqa: E402
from pipeline.learning.proposals import Example, accuracy, load_examples  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.types import ClassifierContext  # noqa: E402

DATA = REPO / "bench" / "data"
FILES = ("journal-dev.jsonl", "journal-fresh.jsonl")
RIGHT = {Intent.RECORDING, Intent.MULTI_OPS}


def labelled() -> list[Example]:
    out = []
    for name in FILES:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("record") is True and "text" in row:
                intent = Intent.MULTI_OPS if len(row.get("ops", [])) > 1 else Intent.RECORDING
                out.append(Example(row["text"], intent))
    return out


def held_out_accuracy(live: LiveClassifier, examples: list[Example]) -> float:
    """A record routed to recording or multi_ops counts as right: both write it."""
    ctx = ClassifierContext()
    hits = sum(live.classify(e.text, ctx).intent in RIGHT for e in examples)
    return round(hits / len(examples), 4)


async def run(
    days: int, held_out_share: float, seed: int, messages: int | None = None
) -> dict[str, Any]:
    rules = Rulebook.load()
    examples = labelled()
    random.Random(seed).shuffle(examples)
    examples = examples[:messages] if messages else examples
    cut = int(len(examples) * held_out_share)
    held_out, stream = examples[:cut], examples[cut:]
    dev = load_examples()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'learning.db'}"
        await upgrade_async(url)
        engine = create_engine(url)
        db = Database.of(engine)
        try:
            live = LiveClassifier(rules.classifier, rules.grammar, db)
            overlays = RuleOverlays(db, live)
            job = NightlyJob(
                db, rules.learning.nightly, rules.classifier.rules, rules.grammar, dev,
                catalog=Catalog.load(), operators=frozenset(),
            )  # fmt: skip
            per_version = [held_out_accuracy(live, held_out)]
            dev_before = accuracy(live.current, dev)
            corrections = 0
            per_day = -(-len(stream) // days)
            ctx = ClassifierContext()
            for day in range(days):
                todays = stream[day * per_day : (day + 1) * per_day]
                async with db.write() as session:
                    for n, example in enumerate(todays):
                        got = live.classify(example.text, ctx)
                        if got.intent in RIGHT:
                            continue
                        corrections += 1
                        session.add(
                            CorrectionRow(
                                trace_id=f"d{day}n{n}", user_id="tg:1", source="operator",
                                text=example.text, was_mode=got.mode, was_intent=got.intent.value,
                                mode="deep", intent=example.intent.value, crew=["ops"],
                            )
                        )  # fmt: skip
                result = await job.run()
                for proposal_id, _ in result.proposals:
                    outcome, _version = await overlays.decide(proposal_id, approve=True, by="tg:1")
                    if outcome == "approved":
                        per_version.append(held_out_accuracy(live, held_out))
            dev_after = accuracy(live.current, dev)
        finally:
            await engine.dispose()
    return {
        "accuracy_before": per_version[0],
        "accuracy_after": per_version[-1],
        "versions": len(per_version) - 1,
        "monotonic": all(b >= a for a, b in itertools.pairwise(per_version)),
        "per_version": per_version,
        "dev_before": dev_before,
        "dev_after": dev_after,
        "held_out": len(held_out),
        "corrections": corrections,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--held-out", type=float, default=0.4)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--messages", type=int, default=None, help="use only N labelled records")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(run(args.days, args.held_out, args.seed, args.messages))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"held-out records: {result['held_out']}, corrections made: {result['corrections']}")
    print(f"held-out accuracy: {result['accuracy_before']} -> {result['accuracy_after']}")
    print(f"approved versions: {result['versions']}, per version: {result['per_version']}")
    print(f"monotonic: {result['monotonic']}")
    print(f"dev corpus accuracy: {result['dev_before']} -> {result['dev_after']}")


if __name__ == "__main__":
    main()
