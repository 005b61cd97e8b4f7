"""Voice benchmark: a voice message's reply latency against a typed message's, with a
fake transcription endpoint over real HTTP that answers in 300 ms (issue 28 point 7).

    .venv/bin/python bench/voice.py [--messages N] [--delay-ms 300] [--json]

In one process: a migrated SQLite database, the bot's real dispatcher with the local
Bot API (bot/local/session.py, as the handler tests), and tests/fakes/stt.py. One
farmer sends N typed «привіт» and N voice messages that the fake hears as «привіт»,
alternating, one at a time; latency is from feeding the update to the handler's
return (the reply sent). Printed: p50/p95 of each, and the goal's ratio
voice p50 / (delay + text p50), to stay <= 1.2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bot.local.session import LocalBot  # noqa: E402
from bot.wiring.dispatcher import build_dispatcher  # noqa: E402
from bot.wiring.factory import build_core  # noqa: E402
from db.migrate import upgrade_async  # noqa: E402
from tests.conftest import make_settings  # noqa: E402
from tests.fakes.stt import FakeStt  # noqa: E402

OGG = b"OggS\x00\x04 bench voice"
FARMER = 900_001
GOAL_RATIO = 1.2


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(messages: int, delay_ms: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        await upgrade_async(url)
        async with FakeStt(default="привіт", delay_s=delay_ms / 1000) as stt:
            settings = make_settings(url)
            stepan = settings.stepan.model_copy(
                update={"stt_model": "whisper-1", "stt_base_url": stt.base_url}
            )
            core = build_core(replace(settings, stepan=stepan))
            try:
                tg = LocalBot(build_dispatcher(core))
                text_ms, voice_ms = [], []
                await tg.say(FARMER, "привіт")  # warm-up: the profile is created
                for _ in range(messages):
                    start = time.perf_counter()
                    await tg.say(FARMER, "привіт")
                    text_ms.append((time.perf_counter() - start) * 1000)
                    stored = tg.telegram.register_file(OGG, kind="voice", mime_type="audio/ogg")
                    fields = {"voice": stored.as_dict() | {"duration": 2}}
                    start = time.perf_counter()
                    await tg.feed(tg.telegram.message_update(FARMER, fields))
                    voice_ms.append((time.perf_counter() - start) * 1000)
            finally:
                await core.close()
    text_p50, voice_p50 = statistics.median(text_ms), statistics.median(voice_ms)
    return {
        "messages": messages,
        "delay_ms": delay_ms,
        "text_p50_ms": round(text_p50, 1),
        "text_p95_ms": round(_p(text_ms, 0.95), 1),
        "voice_p50_ms": round(voice_p50, 1),
        "voice_p95_ms": round(_p(voice_ms, 0.95), 1),
        "ratio": round(voice_p50 / (delay_ms + text_p50), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=30)
    parser.add_argument("--delay-ms", type=float, default=300.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.messages, args.delay_ms))
    if args.json:
        print(json.dumps(result))
        return
    print(f"text  p50 {result['text_p50_ms']} ms  p95 {result['text_p95_ms']} ms")
    print(f"voice p50 {result['voice_p50_ms']} ms  p95 {result['voice_p95_ms']} ms")
    verdict = "ok" if result["ratio"] <= GOAL_RATIO else "over the goal"
    print(
        f"voice p50 / ({args.delay_ms:.0f} ms + text p50) = {result['ratio']} "
        f"(goal <= {GOAL_RATIO}: {verdict})"
    )


if __name__ == "__main__":
    main()
