"""Routing benchmark: the depth classifier plus the activation gate on a labelled corpus.

    python bench/routing.py [--corpus PATH] [--json] [--repeat N]

Each corpus line is ``{"id", "text", "ctx", "mode", "intent", "crew"}`` (see
shared/corpus/LABELS.md); missing ctx keys take the LABELS.md defaults. Prints
mode / intent / crew exact-set accuracy, the misses, and the time per message
next to a trivial ``str.lower().split()`` baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.classifier import Classifier  # noqa: E402
from pipeline.gate import select_crew  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.types import ClassifierContext  # noqa: E402

#: The shared corpus sits next to the checkout (``/work/shared`` for ``/work/main``); a
#: worktree deeper down finds it in the nearest parent that has it.
DEFAULT_CORPUS = next(
    (
        parent / "shared" / "corpus" / "routing-dev.jsonl"
        for parent in REPO.parents
        if (parent / "shared" / "corpus" / "routing-dev.jsonl").is_file()
    ),
    REPO.parent / "shared" / "corpus" / "routing-dev.jsonl",
)
#: LABELS.md: "Missing keys take these defaults".
CTX_DEFAULTS: dict[str, Any] = {
    "interaction_count": 5,
    "has_iot": True,
    "operator": False,
    "force_deep": False,
}
_CTX_FIELDS = {f.name for f in dataclasses.fields(ClassifierContext)}


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    text: str
    ctx: ClassifierContext
    mode: str
    intent: str
    crew: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    mode: str
    intent: str
    crew: tuple[str, ...]
    reason: str

    @property
    def mode_ok(self) -> bool:
        return self.mode == self.case.mode

    @property
    def intent_ok(self) -> bool:
        return self.intent == self.case.intent

    @property
    def crew_ok(self) -> bool:
        return self.crew == self.case.crew


def load_corpus(path: Path) -> list[Case]:
    cases: list[Case] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        ctx_raw = {**CTX_DEFAULTS, **row.get("ctx", {})}
        ctx = ClassifierContext(**{k: v for k, v in ctx_raw.items() if k in _CTX_FIELDS})
        cases.append(
            Case(
                id=str(row["id"]),
                text=row["text"],
                ctx=ctx,
                mode=row["mode"],
                intent=row["intent"],
                crew=tuple(sorted(row["crew"])),
            )
        )
    return cases


def route(classifier: Classifier, case: Case) -> Outcome:
    decision = classifier.classify(case.text, case.ctx)
    crew = select_crew(decision, has_iot=case.ctx.has_iot)
    return Outcome(case, decision.mode, decision.intent, crew, decision.reason)


def per_message_us(fn: Callable[[Case], object], cases: Sequence[Case], repeat: int) -> float:
    """Best of five rounds of ``repeat`` passes over the corpus, in µs per message."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            for case in cases:
                fn(case)
        best = min(best, time.perf_counter() - start)
    return best / (repeat * len(cases)) * 1e6


def _baseline(case: Case) -> object:
    return case.text.lower().split()


def measure(cases: Sequence[Case], rules: Rulebook, repeat: int) -> dict[str, float]:
    warm = rules.classifier
    cold = Classifier(
        rules.classifier.rules,
        rules.grammar,
        token_cache_size=0,
        probes=rules.classifier.probes,
    )
    base = per_message_us(_baseline, cases, repeat)
    warm_us = per_message_us(lambda c: route(warm, c), cases, repeat)
    cold_us = per_message_us(lambda c: route(cold, c), cases, repeat)
    return {
        "us_per_message": round(warm_us, 2),
        "us_per_message_cold": round(cold_us, 2),
        "baseline_us_per_message": round(base, 3),
        "ratio_to_baseline": round(warm_us / base, 1),
        "ratio_to_baseline_cold": round(cold_us / base, 1),
    }


def summarise(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    total = len(outcomes)
    misses = [o for o in outcomes if not (o.mode_ok and o.intent_ok and o.crew_ok)]
    return {
        "messages": total,
        "mode_accuracy": round(sum(o.mode_ok for o in outcomes) / total, 4),
        "intent_accuracy": round(sum(o.intent_ok for o in outcomes) / total, 4),
        "crew_exact_accuracy": round(sum(o.crew_ok for o in outcomes) / total, 4),
        "intent_confusions": {
            f"{exp}->{got}": n
            for (exp, got), n in Counter(
                (o.case.intent, o.intent) for o in outcomes if not o.intent_ok
            ).most_common()
        },
        "misses": [
            {
                "id": o.case.id,
                "text": o.case.text,
                "expected": [o.case.mode, o.case.intent, list(o.case.crew)],
                "got": [o.mode, o.intent, list(o.crew)],
                "reason": o.reason,
            }
            for o in misses
        ],
    }


def _fmt(mode: str, intent: str, crew: Sequence[str]) -> str:
    return f"{mode}/{intent}/[{','.join(crew)}]"


def print_report(corpus: Path, report: dict[str, Any]) -> None:
    n = report["messages"]
    print(f"corpus: {corpus} ({n} messages)")
    for key, label in (
        ("mode_accuracy", "mode accuracy"),
        ("intent_accuracy", "intent accuracy"),
        ("crew_exact_accuracy", "crew exact-set accuracy"),
    ):
        print(f"{label:<26}{report[key] * 100:6.1f}%  ({round(report[key] * n)}/{n})")
    misses = report["misses"]
    print(f"\nmisses: {len(misses)}")
    if misses:
        print(f"  {'id':<6}{'expected':<42}{'got':<42}text")
        for m in misses:
            exp, got = _fmt(*m["expected"]), _fmt(*m["got"])
            print(f"  {m['id']:<6}{exp:<42}{got:<42}{m['text']}")
    if report["intent_confusions"]:
        print("\nintent confusions (expected->got: count)")
        for pair, count in report["intent_confusions"].items():
            print(f"  {pair}: {count}")
    print(
        f"\ntime per message: {report['us_per_message']:.1f} µs"
        f" (cold token cache: {report['us_per_message_cold']:.1f} µs)"
    )
    print(
        f"baseline str.lower()+split: {report['baseline_us_per_message']:.3f} µs"
        f" -> ratio x{report['ratio_to_baseline']}"
        f" (cold x{report['ratio_to_baseline_cold']})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeat", type=int, default=20, help="timed passes per round")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        print(f"routing corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    cases = load_corpus(args.corpus)
    if not cases:
        print(f"routing corpus {args.corpus} is empty", file=sys.stderr)
        return 2
    # The classifier as the bot builds it: the knowledge base scores the advice intent.
    rules = Rulebook.load()
    report = summarise([route(rules.classifier, case) for case in cases])
    report.update(measure(cases, rules, max(1, args.repeat)))
    report["corpus"] = str(args.corpus)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_report(args.corpus, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
