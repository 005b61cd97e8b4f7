"""docs/ARCHITECTURE.md lists the stages in the order the code runs them: every
stage named there exists under that name, and none is missing (issue 24, point 6)."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.handle import Pipeline

DOC = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
ROW = re.compile(r"^([a-z_]+)\s+(\w+)\.(\w+)\s")


def _documented() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### The stages, in the order they run", 1)[1].split("```")[1]
    return [(m[1], m[3]) for line in section.splitlines() if (m := ROW.match(line))]


def test_the_map_lists_the_chain_in_order(pipeline: Pipeline) -> None:
    running = [(stage.name, type(stage).__name__) for stage in pipeline.chain.stages]
    assert _documented() == running
