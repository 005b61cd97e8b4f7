"""Deep path benchmark: the gate and concurrent agents vs the seed's old behaviour.

    python bench/deep_path.py [--latency-ms 50] [--repeat 7] [--corpus PATH] [--json]

A fake LLM (a CrewAI ``BaseLLM`` subclass, ``tests/fakes/llm.py``) answers every call
after ``--latency-ms`` milliseconds: a sub-agent makes a tool call, then answers;
Stepan answers from the reports; the reflection pass returns the answer. Each request
goes through ``Pipeline.handle_message`` on a migrated temp SQLite database with a
seeded farm, so the tools do their real work (queries, an .xlsx, the platform probe).

* new: the activation gate picks the agents; they run side by side; Stepan
  consolidates; one reflection pass.
* old (the seed's section 1 behaviour): all five agents, one after another, then
  Stepan; no reflection (the seed had none).

Requests: "яка вологість на полі 2" on a farm with IoT (1 agent) and "сплануй
тиждень" on a farm without IoT (2 agents: ops and sustainability). Old and new runs
alternate, so load elsewhere on the machine hits both alike; ratios are of medians.

The shortcut figure (issue 11, section 9 of the seed): a generated day of farmers'
messages (``bench/shortcut_mix.py``) replayed with the shortcuts and without them
(``fresh=True``), on the offline composer: how many deep-path runs the 5-minute
repeat and the 1-hour status shortcuts saved, and their reasons as recorded.

The light share is the share of a realistic message mix that the classifier sends
down the light path: the routing corpus (shared/corpus/routing-dev.jsonl) when it is
there, each message with its own context, else a small built-in mix.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pipeline.crew.env import silence_crewai  # noqa: E402

silence_crewai()

import shortcut_mix  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker  # noqa: E402

from bot.config import AgxSettings, Settings, StepanSettings  # noqa: E402
from bot.wiring.factory import build_pipeline  # noqa: E402
from db.engine import create_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.models import (  # noqa: E402
    FarmProfileRow,
    FieldRow,
    InteractionRow,
    OperationRow,
    SensorReadingRow,
)
from db.uow import Database  # noqa: E402
from pipeline.classifier import Classifier  # noqa: E402
from pipeline.crew.config import CrewSpec  # noqa: E402
from pipeline.crew.wiring import build_brains  # noqa: E402
from pipeline.deep import DeepPath  # noqa: E402
from pipeline.handle import Pipeline  # noqa: E402
from pipeline.memory import Memory, build_memory  # noqa: E402
from pipeline.rulebook import Rulebook  # noqa: E402
from pipeline.types import CREW_NAMES, ClassifierContext, DeepRequest, Incoming, Reply  # noqa: E402
from tests.fakes.llm import ScriptedLLM  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "routing-dev.jsonl"
CTX_DEFAULTS: dict[str, Any] = {"interaction_count": 5, "has_iot": True}
BUILT_IN_MIX = [
    "привіт", "дякую", "ок", "добрий ранок", "хто я", "що ти вмієш?", "бувай",
    "запиши полив 20 мм на полі 3", "яка вологість на полі 2", "сплануй тиждень",
    "зроби звіт в excel за жовтень", "план/факт за квітень", "що робити з попелицею",
    "статус сервісів", "спасибі", "👍",
]  # fmt: skip
NOW = datetime(2025, 5, 14, 10, tzinfo=UTC)
IOT_USER, PLAIN_USER = "bench:iot", "bench:plain"


class OldBehaviour:
    """The seed's run.py before the plan: every sub-agent for every deep request."""

    def __init__(self, deep: DeepPath) -> None:
        self._deep = deep

    async def answer(self, request: DeepRequest) -> Reply:
        return await self._deep.answer(replace(request, crew=CREW_NAMES))


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    user: str
    text: str


CASES = (
    Case("1crew", IOT_USER, "яка вологість на полі 2"),
    Case("2crew", PLAIN_USER, "сплануй тиждень"),
)


def _settings(url: str) -> Settings:
    return Settings(
        stepan=StepanSettings(_env_file=None, database_url=url),
        agx=AgxSettings(_env_file=None),
    )


def _pipeline(
    url: str, db: Database, memory: Memory, llm: ScriptedLLM, crew: CrewSpec, *, old: bool
) -> Pipeline:
    rules = Rulebook.load()
    pipeline = build_pipeline(_settings(url), db, memory=memory, rules=rules)
    brains = build_brains(
        pipeline.catalog,
        pipeline.journal,
        db,
        memory.sync,
        rules=replace(rules, crew=crew),
        llm=llm,
    )
    # The same request again and again: the crew is measured, not the repeat shortcut;
    # the seeded journal is around NOW.
    pipeline.swap(
        deep=OldBehaviour(brains.deep) if old else brains.deep,
        responder=brains.responder,
        recall=None,
        clock=lambda: NOW,
    )
    return pipeline


async def _say(
    pipeline: Pipeline, factory: async_sessionmaker[AsyncSession], user: str, text: str
) -> Reply:
    incoming = Incoming(user, 1, text, uuid.uuid4().hex[:16], first_name="Bench")
    return await pipeline.handle_message(incoming)


async def _seed(
    pipeline: Pipeline,
    memory: Memory,
    factory: async_sessionmaker[AsyncSession],
    users: tuple[tuple[str, bool], ...] = ((IOT_USER, True), (PLAIN_USER, False)),
) -> None:
    for user, iot in users:
        await _say(pipeline, factory, user, "привіт")
        await memory.editor.update_farm(user, has_iot_integration=iot)
        async with factory() as session:
            farm_id = (
                await session.execute(
                    select(FarmProfileRow.farm_id).where(FarmProfileRow.user_id == user)
                )
            ).scalar_one()
            pole, north = "field:pole-2", "field:pivnichne"
            session.add_all(
                [
                    FieldRow(farm_id=farm_id, field_id=pole, name="Поле 2", area_ha=8.0),
                    FieldRow(farm_id=farm_id, field_id=north, name="Північне", area_ha=12.0),
                    OperationRow(
                        farm_id=farm_id,
                        op_type="spraying",
                        field_id=pole,
                        op_date=date(2025, 5, 16),
                        status="planned",
                        author=user,
                    ),
                    OperationRow(
                        farm_id=farm_id,
                        op_type="irrigation",
                        field_id=north,
                        op_date=date(2025, 5, 2),
                        status="done",
                        quantity=20.0,
                        unit="mm",
                        author=user,
                    ),
                    SensorReadingRow(
                        farm_id=farm_id,
                        field_id=pole,
                        sensor_id="s-2",
                        sensor_type="soil_moisture",
                        value=23.0,
                        unit="%",
                        measured_at=datetime(2025, 5, 14, 6, tzinfo=UTC),
                        source="api",
                    ),
                ]
            )
            await session.commit()


async def _measure(
    url: str, latency_s: float, repeat: int
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, int]]]:
    spec = CrewSpec.load()
    old_spec = replace(spec, limits=replace(spec.limits, max_parallel_agents=1, reflect=False))
    engine = create_engine(url)
    db = Database.of(engine)
    factory = db.sessions
    llms = {"new": ScriptedLLM(model="bench", latency_s=latency_s),
            "old": ScriptedLLM(model="bench", latency_s=latency_s)}  # fmt: skip
    memories = {"new": build_memory(db), "old": build_memory(db)}
    pipelines = {
        "new": _pipeline(url, db, memories["new"], llms["new"], spec, old=False),
        "old": _pipeline(url, db, memories["old"], llms["old"], old_spec, old=True),
    }
    await _seed(pipelines["new"], memories["new"], factory)
    times: dict[str, dict[str, list[float]]] = {k: {c.name: [] for c in CASES} for k in pipelines}
    calls: dict[str, dict[str, int]] = {k: {} for k in pipelines}
    try:
        for case in CASES:  # warm-up: CrewAI's first crew is slow to build
            for pipeline in pipelines.values():
                await _say(pipeline, factory, case.user, case.text)
        for round_ in range(repeat):
            order = ("old", "new") if round_ % 2 else ("new", "old")
            for case in CASES:
                for kind in order:
                    before = llms[kind].call_count
                    started = time.perf_counter()
                    reply = await _say(pipelines[kind], factory, case.user, case.text)
                    times[kind][case.name].append(time.perf_counter() - started)
                    calls[kind][case.name] = llms[kind].call_count - before
                    if reply.mode != "deep":
                        raise RuntimeError(f"{case.text!r} did not take the deep path")
    finally:
        await engine.dispose()
    return times, calls


async def _shortcuts(url: str, farmers: int) -> dict[str, Any]:
    """The day's mix with the shortcuts and without (see the module's doc)."""
    engine = create_engine(url)
    db = Database.of(engine)
    memory = build_memory(db)
    pipeline = build_pipeline(_settings(url), db, memory=memory, rules=Rulebook.load())
    users = tuple(f"bench:farmer-{n}" for n in range(farmers))
    mix = shortcut_mix.generate(users, NOW)
    on, off = shortcut_mix.for_users(mix, ":on"), shortcut_mix.for_users(mix, ":off")
    try:
        # Two farms in three have sensors (a status reads them; without, the journal).
        seeded = tuple(
            (user + end, n % 3 != 2) for n, user in enumerate(users) for end in (":on", ":off")
        )
        await _seed(pipeline, memory, db.sessions, seeded)
        with_shortcuts = await shortcut_mix.replay(pipeline, on, fresh=False)
        without = await shortcut_mix.replay(pipeline, off, fresh=True)
        async with db.read() as session:
            rows = await session.execute(
                select(InteractionRow.reason, func.count())
                .where(InteractionRow.reason.like("shortcut:%"))
                .group_by(InteractionRow.reason)
            )
            reasons = {str(reason): int(count) for reason, count in rows}
    finally:
        await engine.dispose()
    saved = without - with_shortcuts
    return {
        "farmers": farmers,
        "messages": len(mix),
        "deep_without": without,
        "deep_with": with_shortcuts,
        "saved": saved,
        "saved_share": round(saved / without, 3) if without else 0.0,
        "reasons": reasons,
    }


def light_share(corpus: Path) -> tuple[float, str, int]:
    classifier = Classifier.from_file()
    if corpus.is_file():
        lines = [
            json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line
        ]
        light = 0
        for item in lines:
            ctx = ClassifierContext(**{**CTX_DEFAULTS, **item.get("ctx", {})})
            light += classifier.classify(item["text"], ctx).mode == "light"
        return light / len(lines), f"routing corpus {corpus.name}", len(lines)
    light = sum(classifier.classify(t, ClassifierContext()).mode == "light" for t in BUILT_IN_MIX)
    return light / len(BUILT_IN_MIX), "built-in mix", len(BUILT_IN_MIX)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0, help="fake LLM time per call")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--farmers", type=int, default=12, help="farmers in the shortcut mix")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("crewai").setLevel(logging.CRITICAL)  # its listener errors are noise here

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        upgrade(url)
        times, calls = asyncio.run(_measure(url, args.latency_ms / 1000, args.repeat))
        shortcuts = asyncio.run(_shortcuts(url, args.farmers))
    share, mix, messages = light_share(args.corpus)
    medians = {k: {c: statistics.median(v) for c, v in cases.items()} for k, cases in times.items()}
    result = {
        "ratio_1crew": round(medians["old"]["1crew"] / medians["new"]["1crew"], 2),
        "ratio_2crew": round(medians["old"]["2crew"] / medians["new"]["2crew"], 2),
        "light_share": round(share, 3),
        "latency_ms": args.latency_ms,
        "repeat": args.repeat,
        "median_ms": {k: {c: round(v * 1000, 1) for c, v in m.items()} for k, m in medians.items()},
        "llm_calls": calls,
        "mix": mix,
        "mix_messages": messages,
        "shortcuts": shortcuts,
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    print(f"fake LLM: {args.latency_ms:.0f} ms per call, {args.repeat} runs each (medians)")
    print(f"{'request':<10}{'old ms':>10}{'new ms':>10}{'ratio':>8}{'calls old/new':>16}")
    for case in CASES:
        old, new = medians["old"][case.name], medians["new"][case.name]
        used = f"{calls['old'][case.name]}/{calls['new'][case.name]}"
        print(f"{case.name:<10}{old * 1000:>10.1f}{new * 1000:>10.1f}{old / new:>7.2f}x{used:>16}")
    print(f"light share: {share:.1%} of {messages} messages ({mix})")
    s = shortcuts
    print(
        f"shortcuts: {s['messages']} messages of {s['farmers']} farmers, deep runs "
        f"{s['deep_without']} -> {s['deep_with']}: {s['saved']} saved "
        f"({s['saved_share']:.1%}); recorded {s['reasons']}"
    )


if __name__ == "__main__":
    main()
