"""A few rows in every table, for ``tests/integration/test_query_plans.py``: enough
that every repository function finds what it looks for (ids 1, ``tg:1``'s farm) and
writes what it writes without breaking a constraint. The plans do not depend on the
row counts (SQLite plans without statistics; PostgreSQL is explained with
sequential scans priced out)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from db.models import (
    AgronomistQuestionRow,
    AlertRow,
    CorrectionRow,
    CropRow,
    DictionaryTermRow,
    FarmProfileRow,
    FarmTokenRow,
    FeedbackRow,
    FieldRow,
    HandoffRow,
    InteractionRow,
    JobRunRow,
    JobSlotRow,
    LearningRow,
    OperationDraftRow,
    OperationRevisionRow,
    OperationRow,
    OutboxRow,
    PendingTermRow,
    ProposalRow,
    RuleOverlayRow,
    SensorReadingRow,
    TombstoneRow,
    UpdateInboxRow,
    UserProfileRow,
)
from db.uow import Database

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
USER = "tg:1"
FARM = "farm:1"


async def seed(db: Database) -> None:
    hour = timedelta(hours=1)
    async with db.write() as session:
        session.add_all([UserProfileRow(user_id=USER, interaction_count=40),
                         UserProfileRow(user_id="tg:2", interaction_count=3)])  # fmt: skip
        await session.flush()
        session.add(FarmProfileRow(farm_id=FARM, user_id=USER))
        await session.flush()
        session.add_all(
            [
                FieldRow(farm_id=FARM, field_id="field:north", name="Північне", area_ha=40),
                CropRow(farm_id=FARM, crop_id="crop:wheat", name="Пшениця"),
                DictionaryTermRow(farm_id=FARM, kind="crop", canonical_id="crop:wheat",
                                  display="Пшениця", synonyms=["пшениця"]),
                PendingTermRow(farm_id=FARM, kind="product", term="карбамід",
                               first_message="внесли карбамід"),
                OperationDraftRow(user_id=USER, farm_id=FARM, chat_id=1,
                                  source_message_id=5, payload={}, created_at=NOW - hour),
                FarmTokenRow(token_hash="h" * 64, farm_id=FARM, label="probe"),
                AlertRow(farm_id=FARM, field_id="field:north", sensor_type="soil_moisture",
                         kind="below_min", value=9.0, threshold=15.0, started_at=NOW - hour),
                InteractionRow(trace_id="trace-1", user_id=USER, chat_id=1, mode="light",
                               intent="greeting", crew=[], confidence=1.0, reason="r",
                               latency_ms=3.0, text="привіт", created_at=NOW - hour,
                               update_id=1),
                UpdateInboxRow(update_id=1, payload="{}", status="handling", claimed_by="a",
                               claimed_until=NOW - hour, received_at=NOW - hour),
                UpdateInboxRow(update_id=2, payload=None, status="done", received_at=NOW,
                               finished_at=NOW - timedelta(days=9), outcome="ok"),
                OutboxRow(user_id=USER, fact_key="user", operation="upsert", payload={},
                          created_at=NOW, state="pending"),
                OutboxRow(user_id=USER, fact_key="farm", operation="delete", payload=None,
                          created_at=NOW, state="dead", last_error="400"),
                TombstoneRow(user_id="tg:2", forgotten_at=NOW - hour),
                JobRunRow(job_id="outbox_flush", runs=3),
                JobSlotRow(job_id="outbox_flush", slot_at=NOW - timedelta(days=8),
                           claimed_by="a", claimed_at=NOW - timedelta(days=8), outcome="ok"),
                HandoffRow(direction="out", user_id=USER, peer="vet", domain="veterinary",
                           language="uk", question="корова кашляє", created_at=NOW - hour),
                AgronomistQuestionRow(user_id=USER, language="uk", question="Коли сіяти?",
                                      status="offered", card="card"),
                FeedbackRow(trace_id="trace-1", user_id=USER, verdict="down",
                            intent="greeting"),
                LearningRow(source="negative", intent="greeting", rule="коротше",
                            trace_id="trace-1"),
                CorrectionRow(trace_id="trace-1", user_id=USER, source="operator",
                              text="привіт", was_mode="light", was_intent="greeting",
                              mode="light", intent="greeting", crew=[]),
                RuleOverlayRow(terms=[], created_by="operator"),
                ProposalRow(intent="greeting", kind="trigger", term="здоров", support=3,
                            dev_before=0.9, dev_after=0.92, corrections_before=0.5,
                            corrections_after=0.7),
            ]
        )  # fmt: skip
        await session.flush()
        session.add(
            OperationRow(farm_id=FARM, op_type="sowing", field_id="field:north",
                         crop_id="crop:wheat", op_date=date(2026, 6, 1), status="done",
                         author=USER, pending_term_id=1, created_at=NOW - hour)
        )  # fmt: skip
        session.add(
            OperationRevisionRow(farm_id=FARM, operation_id=1, kind="write", actor=USER,
                                 after={"op_type": "sowing"}, source_key="seed:1",
                                 created_at=NOW - hour)
        )  # fmt: skip
        for minutes in (10, 70):
            session.add(
                SensorReadingRow(farm_id=FARM, field_id="field:north", sensor_id="p1",
                                 sensor_type="soil_moisture", value=12.0, unit="%",
                                 measured_at=NOW - timedelta(minutes=minutes), source="api")
            )  # fmt: skip
