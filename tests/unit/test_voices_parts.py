"""Every list line and counted line a deep part writes reads differently per level
(issue 11 point 3), in both languages: a novice reads the same facts in plain words
(what the threshold, the plan or the alert means), an intermediate the reference
line, an expert the numbers and terms alone. Counts follow CLDR plural rules."""

from __future__ import annotations

import re

import pytest

from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.replies.voice import EXPERT, INTERMEDIATE, NOVICE, OPERATOR, leveled
from pipeline.types import Language

#: The lines the deep path's tools write per item of a list, and the counted lines
#: (pipeline/crew/tools/, pipeline/farm/reports/summary_text.py).
PART_LINES = (
    "compose.planned_item",
    "compose.readings_item",
    "compose.below",
    "compose.above",
    "compose.alert_below",
    "compose.alert_above",
    "compose.plan_fact_item",
    "compose.plan_fact_unplanned",
    "compose.plan_fact_total",
    "compose.report_ready",
    "reports.summary_operations",
    "reports.summary_plan",
)
FACTS = {
    "date": "16.05",
    "operation": "Обприскування",
    "field": "Поле 2",
    "amount": ", Децис",
    "sensor": "Вологість ґрунту",
    "value": "17,5",
    "unit": "%",
    "when": "14.05 09:00",
    "threshold": "20 %",
    "since": "13.05 18:00",
    "done": 7,
    "planned": 9,
    "matched": 6,
    "pct": "66,7",
    "start": "01.10.2024",
    "end": "31.10.2024",
    "period": "01.10–31.10.2024",
    "rows": 3,
    "fields": 4,
}


def render(catalog: Catalog, lang: Language, key: str, voice: str) -> str:
    counted = {
        "records": catalog.plural(lang, "plural.records", FACTS["rows"]),  # type: ignore[arg-type]
        "operations": catalog.plural(lang, "plural.operations", FACTS["rows"]),  # type: ignore[arg-type]
    }
    return catalog.text(lang, leveled(Texts(catalog, lang), key, voice), **FACTS, **counted)


@pytest.mark.parametrize("lang", ["uk", "en"])
@pytest.mark.parametrize("key", PART_LINES)
def test_each_part_line_reads_differently_per_level(
    catalog: Catalog, lang: Language, key: str
) -> None:
    novice, middle, expert = (render(catalog, lang, key, v) for v in (NOVICE, INTERMEDIATE, EXPERT))
    assert len({novice, middle, expert}) == 3, (novice, middle, expert)
    # The novice's plain words are longer; the expert's numbers and terms are not.
    assert len(expert) <= len(middle) < len(novice)
    # Every level keeps the facts: each value the reference line shows is in all three.
    shown = [
        str(FACTS[name])
        for name in re.findall(r"{(\w+)}", catalog.text(lang, key))
        if name in FACTS
    ]
    for text in (novice, expert):
        assert all(value in text for value in shown), (text, shown)
    # An operator reads the expert's line.
    assert render(catalog, lang, key, OPERATOR) == expert


@pytest.mark.parametrize(
    ("lang", "count", "words"),
    [
        ("uk", 1, "1 запис"),
        ("uk", 3, "3 записи"),
        ("uk", 5, "5 записів"),
        ("uk", 21, "21 запис"),
        ("en", 1, "1 record"),
        ("en", 3, "3 records"),
    ],
)
def test_the_experts_report_line_counts_records_by_cldr(
    catalog: Catalog, lang: Language, count: int, words: str
) -> None:
    # Plain words (issue 30 point 2): «Звіт у Excel за …: 7 записів.», not «XLSX …: 7 рядків.».
    records = catalog.plural(lang, "plural.records", count)
    text = catalog.text(
        lang, "level.expert.compose.report_ready", period="01.10–31.10.2024", records=records
    )
    start = {"uk": "Звіт у Excel за", "en": "Excel report for"}[lang]
    assert text == f"{start} 01.10–31.10.2024: {words}."
    operations = catalog.plural(lang, "plural.operations", count)
    novice = catalog.text(
        lang, "level.novice.compose.report_ready", period="01.10–31.10.2024", operations=operations
    )
    assert operations in novice
