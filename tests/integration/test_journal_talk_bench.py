"""``bench/journal.py --conversations`` (bench/journal_talk.py): a conversation is
scored by the journal's final state, a wrong expectation is a miss, and a value that
changed though nobody asked is counted as unintended."""

from __future__ import annotations

import json
from pathlib import Path

from tests.shared import bench_module

REPO = Path(__file__).resolve().parents[2]
HEAD = json.loads(
    (REPO / "bench/data/journal-conversations-dev.jsonl").read_text("utf-8").splitlines()[0]
)
FERT = {
    "type": "fertilising",
    "field": "Левада",
    "product": "аміачна селітра",
    "rate_unit": "kg/ha",
}


async def test_conversations_are_scored_by_the_final_journal(tmp_path: Path) -> None:
    talk = bench_module("journal_talk")
    rows = [
        # Right: the correction lands.
        {"id": "ok", "steps": [{"say": "внесли селітру 150 кг/га на Леваді"}, {"press": "yes"},
                               {"say": "не 150, а 120"}, {"press": "yes"}],
         "journal": [FERT | {"rate": 120}]},
        # Expected wrongly (the rate is 120): a miss, but nothing changed unasked.
        {"id": "miss", "steps": [{"say": "внесли селітру 150 кг/га на Леваді"}, {"press": "yes"},
                                 {"say": "не 150, а 120"}, {"press": "yes"}],
         "journal": [FERT | {"rate": 150}]},
        # The expectation says the record stays as written, and it does: ❌ on the edit.
        {"id": "kept", "steps": [{"say": "внесли селітру 150 кг/га на Леваді"}, {"press": "yes"},
                                 {"say": "не 150, а 120"}, {"press": "no"}],
         "journal": [FERT | {"rate": 150}]},
    ]  # fmt: skip
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [HEAD, *rows]), "utf-8")
    outcomes = {o.conversation.id: o for o in await talk.run_all(path)}
    assert (outcomes["ok"].exact, outcomes["miss"].exact, outcomes["kept"].exact) == (
        True,
        False,
        True,
    )
    # 120 is neither what "miss" expected (150) nor what was first written (150).
    assert outcomes["miss"].unintended and not outcomes["ok"].unintended
    report = talk.report(list(outcomes.values()))
    assert report["misses"] == ["miss"] and report["exact"] == round(2 / 3, 3)
