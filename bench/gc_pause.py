"""What one full garbage collection costs the bot, before and after its start-up heap
is frozen (bot/middlewares/heap.py, issue 17 point 2).

    .venv/bin/python bench/gc_pause.py [--messages 200] [--repeat 5] [--json]

Builds what ``stepan run`` builds (core, dispatcher, pinned response models) on a
fresh migrated SQLite file, answers ``--messages`` light messages through the
pipeline (lazy imports, caches), then times ``gc.collect()`` (CPU time of this
process, the median of ``--repeat``) and counts the objects a full collection walks;
then freezes the heap as the bot does, answers as many messages again, and measures
again. CPU time, not wall time,
so other load on the machine does not enter the figure; the ratio is of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for entry in (REPO, REPO / "bench"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from pipeline.crew.env import silence_crewai  # noqa: E402

silence_crewai()

from volume import settings_for  # noqa: E402

from bot.cli.run import pin_response_models  # noqa: E402
from bot.middlewares.heap import HeapFreezer  # noqa: E402
from bot.wiring.dispatcher import build_dispatcher  # noqa: E402
from bot.wiring.factory import build_core  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from pipeline.types import Incoming  # noqa: E402

TEXTS = ("привіт", "дякую", "ок", "добрий ранок", "thanks")


def full_collection_ms(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        gc.collect()
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times)


async def run(messages: int, repeat: int) -> dict[str, float | int]:
    with tempfile.TemporaryDirectory(prefix="bench-gc-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/stepan.db"
        await upgrade_async(url)
        pinned = pin_response_models()
        core = build_core(settings_for(url))
        dispatcher = build_dispatcher(core)

        async def answer() -> None:
            for n in range(messages):
                user = 9_000_000 + n % 50
                await core.pipeline.handle_message(
                    Incoming(f"tg:{user}", user, TEXTS[n % len(TEXTS)], uuid.uuid4().hex[:16])
                )

        try:
            await answer()
            before_objects = len(gc.get_objects())
            before_ms = full_collection_ms(repeat)
            frozen = HeapFreezer().freeze()
            await answer()  # the bot goes on working after the freeze
            after_objects = len(gc.get_objects())
            after_ms = full_collection_ms(repeat)
        finally:
            gc.unfreeze()
            await core.close()
        del pinned, dispatcher
    return {
        "objects_scanned_before": before_objects,
        "full_gc_ms_before": round(before_ms, 2),
        "frozen": frozen,
        "objects_scanned_after": after_objects,
        "full_gc_ms_after": round(after_ms, 3),
        "ratio": round(after_ms / before_ms, 4) if before_ms else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.messages, args.repeat))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
