"""One webhook instance for bench/scale.py, with a scripted LLM at CrewAI's BaseLLM
boundary (tests/fakes/llm.py) answering every call after ``--llm-latency-ms``.

    python bench/scale_instance.py --llm-latency-ms 300

Settings come from the environment as for ``stepan run --webhook``; the instance
runs exactly as ``bot run --webhook`` does, except that the LLM is the scripted one
(light replies make one call, deep requests run the CrewAI crew). No network
leaves the machine: the scripted LLM never opens a socket.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bot.__main__ import configure_logging  # noqa: E402
from bot.cli.run import run_bot  # noqa: E402
from bot.config import load_settings  # noqa: E402
from pipeline.crew.env import silence_crewai  # noqa: E402

#: The last line an instance writes: how many calls its scripted LLM answered.
CALLS_LINE = "scripted LLM calls:"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-latency-ms", type=float, default=300.0)
    args = parser.parse_args(argv)
    settings = load_settings()
    configure_logging(settings.stepan.log_level, quiet=False)
    silence_crewai()
    from tests.fakes.llm import ScriptedLLM

    llm = ScriptedLLM(model="scale-bench", latency_s=args.llm_latency_ms / 1000)
    try:
        asyncio.run(run_bot(settings, webhook_mode=True, llm=llm))
    finally:
        # bench/scale.py reads this line from the instance's log.
        print(f"{CALLS_LINE} {llm.call_count}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
