"""Agronomy benchmark: labelled questions through the knowledge base, no LLM.

    python bench/agronomy.py [--data PATH] [--json] [--misses] [--repeat N]

Each line of the data file (``bench/data/agronomy-dev.jsonl`` by default; the 40
questions of ``agronomy-fresh.jsonl`` were written before any tuning and never tuned
on) is ``{"id", "text", "lang", "level", "farm", "topic", "kind", "expect",
"forbid"}``; ``farm`` may hold the farm's ``region``, ``crops``, ``soil_temp``,
``fields`` ({name: ha}), ``today`` and the conversation's ``previous_crop``.

A question passes when the reply matches ``expect`` and none of ``forbid`` (another
crop's card, a wrong rule such as a spring date for a winter crop, any rate or date
where Stepan should say it does not know). The reply comes from
``KnowledgeBase.lookup`` + ``Composer.compose`` (a later step runs it through
``handle_message``). The baseline, measured in the same run on the same questions, is
the rule-based advice Stepan gave before the knowledge base: ``advice.toml``'s topic
and its catalog paragraph.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.i18n import Catalog  # noqa: E402
from pipeline.knowledge import Composer, FarmFacts  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.types import Language  # noqa: E402

DEFAULT_DATA = REPO / "bench" / "data" / "agronomy-dev.jsonl"


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    text: str
    lang: Language
    level: str
    farm: dict[str, Any]
    expect: re.Pattern[str]
    forbid: tuple[re.Pattern[str], ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    reply: str
    passed: bool
    wrong: bool
    unsure: bool
    lookup_ms: float
    total_ms: float


def load(path: Path) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        cases.append(
            Case(
                id=row["id"],
                text=row["text"],
                lang="en" if row["lang"] == "en" else "uk",
                level=row.get("level", "intermediate"),
                farm=row.get("farm", {}),
                expect=re.compile(row["expect"], re.IGNORECASE),
                forbid=tuple(re.compile(p, re.IGNORECASE) for p in row.get("forbid", [])),
            )
        )
    return cases


def judge(case: Case, reply: str) -> tuple[bool, bool]:
    wrong = any(pattern.search(reply) for pattern in case.forbid)
    return bool(case.expect.search(reply)) and not wrong, wrong


def run(cases: list[Case], rules: Rulebook, composer: Composer) -> list[Outcome]:
    kb = rules.knowledge
    outcomes = []
    for case in cases:
        farm = case.farm
        facts = FarmFacts(
            today=date.fromisoformat(farm["today"]) if farm.get("today") else None,
            soil_temp_c=farm.get("soil_temp"),
            fields=farm.get("fields", {}),
        )
        started = time.perf_counter()
        lookup = kb.lookup(
            case.text,
            farm_crops=farm.get("crops", ()),
            farm_region=farm.get("region"),
            previous_crop=farm.get("previous_crop"),
        )
        looked = time.perf_counter()
        answer = composer.compose(
            lookup,
            lang=case.lang,
            level=case.level,  # type: ignore[arg-type]
            farm_facts=facts,
        )
        done = time.perf_counter()
        passed, wrong = judge(case, answer.text)
        outcomes.append(
            Outcome(
                case,
                answer.text,
                passed,
                wrong,
                answer.unsure,
                (looked - started) * 1000,
                (done - started) * 1000,
            )
        )
    return outcomes


def baseline(cases: list[Case], rules: Rulebook, catalog: Catalog) -> list[Outcome]:
    """What Stepan answered before: advice.toml's topic and its catalog paragraph."""
    outcomes = []
    for case in cases:
        started = time.perf_counter()
        topic = rules.words.advice_topic(case.text)
        reply = catalog.text(case.lang, f"advice.{topic.name}" if topic else "advice.general")
        reply += "\n" + catalog.text(case.lang, "advice.confirm")
        elapsed = (time.perf_counter() - started) * 1000
        passed, wrong = judge(case, reply)
        outcomes.append(Outcome(case, reply, passed, wrong, False, elapsed, elapsed))
    return outcomes


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(outcomes: list[Outcome], base: list[Outcome], data: Path) -> dict[str, Any]:
    n = len(outcomes)
    right = sum(o.passed for o in outcomes)
    total = [o.total_ms for o in outcomes]
    lookups = [o.lookup_ms for o in outcomes]
    base_ms = statistics.median(o.total_ms for o in base)
    p50 = statistics.median(total)
    return {
        "questions": n,
        "answered_right": right,
        "pass_rate": round(right / n, 3) if n else 0.0,
        "wrong_crop_or_rule": sum(o.wrong for o in outcomes),
        "honest_unsure": sum(o.unsure for o in outcomes),
        "p50_ms": round(p50, 3),
        "retrieval_p50_ms": round(statistics.median(lookups), 3),
        "retrieval_p99_ms": round(_p(lookups, 0.99), 3),
        "baseline_pass_rate": round(sum(o.passed for o in base) / n, 3) if n else 0.0,
        "baseline_wrong_crop_or_rule": sum(o.wrong for o in base),
        "baseline_p50_ms": round(base_ms, 3),
        "p50_vs_baseline": round(p50 / base_ms, 2) if base_ms else None,
        "data": str(data.relative_to(REPO)) if data.is_relative_to(REPO) else str(data),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--misses", action="store_true", help="print every failed question")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes (best p50 kept)")
    args = parser.parse_args(argv)
    rules = Rulebook.load()
    catalog = Catalog.load()
    composer = Composer(rules.knowledge, catalog, rules.vocabulary)
    cases = load(args.data)
    runs = [run(cases, rules, composer) for _ in range(max(1, args.repeat))]
    outcomes = min(runs, key=lambda r: statistics.median(o.total_ms for o in r))
    bases = [baseline(cases, rules, catalog) for _ in range(max(1, args.repeat))]
    base = min(bases, key=lambda r: statistics.median(o.total_ms for o in r))
    result = summary(outcomes, base, args.data)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")
    if args.misses:
        for outcome in outcomes:
            if not outcome.passed:
                mark = "WRONG" if outcome.wrong else "miss"
                print(f"\n--- {mark} {outcome.case.id}: {outcome.case.text}")
                print(f"    expect: {outcome.case.expect.pattern}")
                print("    " + outcome.reply.replace("\n", "\n    "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
