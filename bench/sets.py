"""Accuracy on every labelled set: routing, journal and agronomy, set by set.

    python bench/sets.py [--bench routing|journal|agronomy] [--set NAME] [--json] [--misses]
                         [--timing] [--rules-only]

The sets are files in ``bench/data`` named ``<bench>-<set>.jsonl`` (routing's ``dev``
set is ``shared/corpus/routing-dev.jsonl``): ``dev`` is what the rules were written
against; ``fresh`` was written before a round of tuning and never tuned on; ``holdout``
was written from a farmer population's phrasing before the rules were read (tuning on
it generalises, never patches its sentences); ``holdout2`` was written after that
tuning and never tuned on: its score is the one that predicts unseen messages.

One line per set: routing's mode / intent / crew exact-set accuracy and the share of
messages with all three right; journal's field accuracy and exact messages; agronomy's
pass rate and wrong answers. Each bench's own script measures speed
(``bench/routing.py``, ``bench/journal.py``, ``bench/agronomy.py``); ``--timing`` adds,
per routing set, the classifier's thread CPU time per message (best of 15 rounds of 5
passes) next to a ``str.lower().split()`` baseline timed the same way in the same run:
thread time is what a loaded machine's waiting for a core does not inflate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import agronomy, journal, routing  # noqa: E402
from pipeline.language.catalog import Catalog  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402

DATA = REPO / "bench" / "data"
BENCHES = ("routing", "journal", "agronomy")
ORDER = ("dev", "fresh", "holdout", "holdout2")


def set_paths(bench: str) -> dict[str, Path]:
    """Every set of ``bench`` by name, in the order of :data:`ORDER` (others last)."""
    found = {p.name[len(bench) + 1 : -len(".jsonl")]: p for p in DATA.glob(f"{bench}-*.jsonl")}
    # Conversations are scored by ``bench/journal.py --conversations``, not as messages.
    found = {name: p for name, p in found.items() if not name.startswith("conversations")}
    if bench == "routing" and routing.DEFAULT_CORPUS.is_file():
        found.setdefault("dev", routing.DEFAULT_CORPUS)
    rank = {name: n for n, name in enumerate(ORDER)}
    return dict(sorted(found.items(), key=lambda item: (rank.get(item[0], len(ORDER)), item[0])))


def score_routing(path: Path, rules: Rulebook) -> dict[str, Any]:
    outcomes = [routing.route(rules.classifier, case) for case in routing.load_corpus(path)]
    report = routing.summarise(outcomes)
    right = len(outcomes) - len(report["misses"])
    report["all_right"] = round(right / len(outcomes), 4) if outcomes else 1.0
    report["headline"] = (
        f"mode {report['mode_accuracy']:.3f}  intent {report['intent_accuracy']:.3f}  "
        f"crew {report['crew_exact_accuracy']:.3f}  all {report['all_right']:.3f}"
    )
    return report


def _cpu_us(fn: Callable[[routing.Case], object], cases: Sequence[routing.Case]) -> float:
    for case in cases:
        fn(case)
    best = float("inf")
    for _ in range(15):
        start = time.thread_time()
        for _ in range(5):
            for case in cases:
                fn(case)
        best = min(best, time.thread_time() - start)
    return best / (5 * len(cases)) * 1e6


def time_routing(path: Path, rules: Rulebook) -> dict[str, float]:
    cases = routing.load_corpus(path)
    classifier = rules.classifier
    cpu = _cpu_us(lambda case: routing.route(classifier, case), cases)
    base = _cpu_us(lambda case: case.text.lower().split(), cases)
    return {"cpu_us_per_message": round(cpu, 2), "cpu_baseline_us": round(base, 3),
            "cpu_ratio": round(cpu / base, 1)}  # fmt: skip


def score_journal(path: Path, rules: Rulebook) -> dict[str, Any]:
    corpus = journal.load_corpus(path)
    report = journal.score(corpus, journal.Reader(corpus, rules))
    report["headline"] = (
        f"fields {report['field_accuracy']:.3f}  exact {report['messages_exact']:.3f}  "
        f"false/missed records {report['false_records']}/{report['missed_records']}"
    )
    return report


def score_agronomy(path: Path, rules: Rulebook) -> dict[str, Any]:
    catalog = Catalog.load()
    cases = agronomy.load(path)
    outcomes = asyncio.run(agronomy.run_async(cases, rules, catalog, 1))
    right = sum(o.passed for o in outcomes)
    return {
        "questions": len(outcomes),
        "pass_rate": round(right / len(outcomes), 4) if outcomes else 1.0,
        "wrong_crop_or_rule": sum(o.wrong for o in outcomes),
        "headline": (
            f"pass {right}/{len(outcomes)} = {right / max(1, len(outcomes)):.3f}  "
            f"wrong {sum(o.wrong for o in outcomes)}"
        ),
        "misses": [_miss(o) for o in outcomes if not o.passed],
    }


def _miss(outcome: agronomy.Outcome) -> dict[str, Any]:
    case = outcome.case
    return {
        "id": case.id,
        "text": case.text,
        "expect": case.expect.pattern,
        "wrong": outcome.wrong,
        "reply": outcome.reply,
    }


SCORERS: dict[str, Callable[[Path, Rulebook], dict[str, Any]]] = {
    "routing": score_routing,
    "journal": score_journal,
    "agronomy": score_agronomy,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bench", choices=BENCHES, action="append", help="default: all three")
    parser.add_argument("--set", action="append", dest="sets", help="default: every set")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--misses", action="store_true", help="print every miss")
    parser.add_argument("--timing", action="store_true", help="routing CPU time per message")
    parser.add_argument(
        "--rules-only", action="store_true", help="without the learned fallback (the before)"
    )
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    rules = Rulebook.load(model=None) if args.rules_only else Rulebook.load()
    results: dict[str, dict[str, Any]] = {}
    for bench in args.bench or BENCHES:
        for name, path in set_paths(bench).items():
            if args.sets and name not in args.sets:
                continue
            report = SCORERS[bench](path, rules)
            if args.timing and bench == "routing":
                report.update(time_routing(path, rules))
                report["headline"] += (
                    f"  cpu {report['cpu_us_per_message']:.2f} µs/msg"
                    f" (x{report['cpu_ratio']} of split)"
                )
            results[f"{bench}/{name}"] = report
            if not args.json:
                print(f"{bench + '/' + name:<20} {report['headline']}", flush=True)
                if args.misses:
                    for miss in report["misses"]:
                        print("    " + json.dumps(miss, ensure_ascii=False))
    if args.json:
        keep = {"misses"} if args.misses else set()
        slim = {
            key: {f: v for f, v in report.items() if f != "misses" or f in keep}
            for key, report in results.items()
        }
        print(json.dumps(slim, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
