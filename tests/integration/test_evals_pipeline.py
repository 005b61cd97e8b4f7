"""Eval rules in the pipeline: checked on every reply, stored per interaction, shown
as a footnote to operators only."""

from __future__ import annotations

import dataclasses
import uuid

from sqlalchemy import select

from bot.config import Settings
from bot.wiring.factory import build_pipeline
from db.models import InteractionRow
from db.uow import Database
from pipeline.language.catalog import Catalog
from pipeline.learning.evals import EvalRules
from pipeline.memory import Memory
from pipeline.rulebook import Rulebook
from pipeline.types import Incoming

STRICT = EvalRules.from_mapping(
    {
        "rules": [
            {
                "id": "never_short",
                "name": {"uk": "закоротко", "en": "too short"},
                "type": "min_length",
                "limit": 10_000,
            },
            {
                "id": "hint",
                "name": {"uk": "підказка", "en": "hint"},
                "type": "string_contains",
                "value": "жодна відповідь цього не має",
                "severity": "info",
            },
            {
                "id": "only_reports",
                "name": {"uk": "звіти", "en": "reports"},
                "type": "max_length",
                "limit": 1,
                "intents": ["reporting"],
            },
        ]
    }
)


def _incoming(text: str, *, operator: bool) -> Incoming:
    return Incoming(
        user_id="tg:7" if operator else "tg:8",
        chat_id=7,
        text=text,
        trace_id=uuid.uuid4().hex[:16],
        first_name="Оксана",
        is_operator=operator,
    )


async def test_footnotes_for_operators_only_and_results_stored(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook, memory: Memory
) -> None:
    pipeline = build_pipeline(
        settings, db, catalog, memory=memory, rules=dataclasses.replace(rules, evals=STRICT)
    )
    farmer = await pipeline.handle_message(_incoming("дякую", operator=False))
    operator = await pipeline.handle_message(_incoming("дякую", operator=True))
    assert "⚠️" not in farmer.text and "закоротко" not in farmer.text
    # The operator's technical voice (pipeline/replies/voice.py): the expert's line, the
    # checks, then how the message was handled.
    assert operator.text.startswith(catalog.text("uk", "level.expert.light.thanks"))
    body, handled = operator.text.rsplit("\n\n", 1)
    assert body.endswith("\n\n⚠️ закоротко\nℹ️ підказка") and handled.startswith("⚙️ код")
    async with db.read() as session:
        rows = (await session.scalars(select(InteractionRow).order_by(InteractionRow.id))).all()
    assert [(r.eval_warnings, r.eval_infos, r.eval_failed) for r in rows] == [
        (1, 1, ["never_short", "hint"]),
        (1, 1, ["never_short", "hint"]),
    ]


async def test_clean_replies_have_no_footnote(
    settings: Settings, db: Database, catalog: Catalog, rules: Rulebook, memory: Memory
) -> None:
    pipeline = build_pipeline(settings, db, catalog, memory=memory, rules=rules)
    reply = await pipeline.handle_message(_incoming("привіт", operator=True))
    assert "⚠️" not in reply.text and "ℹ️" not in reply.text
    async with db.read() as session:
        row = (await session.scalars(select(InteractionRow))).one()
    assert (row.eval_warnings, row.eval_infos, row.eval_failed) == (0, 0, [])
