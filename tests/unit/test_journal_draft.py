"""The journal card's draft as a typed, versioned model (pipeline/farm/journal/draft.py):
it survives its own JSON, reads what the journal stored before it was a model (a
card waiting in a live database when the bot is upgraded), and never changes in place."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.farm.journal.card import CardWriter
from pipeline.farm.journal.draft import SCHEMA_VERSION, DraftOperation, JournalDraft
from pipeline.language.catalog import Catalog
from pipeline.rulebook import Rulebook

#: Payloads and their cards captured from the journal before the model (version 1);
#: the cards as they read now (issue 30: an operation starts its line with a capital).
CAPTURED = json.loads(
    (Path(__file__).parent / "data" / "draft-payloads-v1.json").read_text(encoding="utf-8")
)["cards"]


@pytest.fixture(scope="module")
def writer(rules: Rulebook, catalog: Catalog) -> CardWriter:
    return CardWriter(catalog, rules.operations.nominative_endings)


def _sowing(**changes: Any) -> DraftOperation:
    values: dict[str, Any] = {
        "op_type": "sowing",
        "field_id": "field:pole-3",
        "crop_id": "crop:peas",
        "rate": 250.0,
        "rate_unit": "kg/ha",
        "op_date": date(2025, 5, 12),
        "status": "done",
        "pending": {"field:гора": 0},
        "names": {"field:pole-3": "Поле 3", "crop:peas": "Горох"},
    }
    return DraftOperation.model_validate({**values, **changes})


def test_a_draft_survives_its_payload() -> None:
    draft = JournalDraft(operations=(_sowing(), _sowing(field_id=None, written=True)))
    payload = draft.to_payload()
    assert payload["version"] == SCHEMA_VERSION
    stored = json.loads(json.dumps(payload))  # what the JSON column gives back
    assert JournalDraft.from_payload(stored) == draft


@pytest.mark.parametrize("captured", CAPTURED, ids=lambda c: f"{c['message']}")
def test_a_payload_stored_before_the_model_reads_and_shows_the_same_card(
    captured: dict[str, Any], writer: CardWriter
) -> None:
    payload = captured["payload"]
    assert "version" not in payload
    draft = JournalDraft.from_payload(payload)
    assert draft.version == SCHEMA_VERSION
    assert writer.card(draft.operations, "uk") == captured["card"]
    for operation, old in zip(draft.operations, payload["ops"], strict=True):
        assert operation.op_date == date.fromisoformat(old["op_date"])
        assert operation.written is bool(old.get("written"))
        assert dict(operation.pending) == old["pending"]
        # (``weather`` came later: a card stored before has none.)
        assert operation.row_values() == {key: old.get(key) for key in operation.row_values()}
    # Stored again, it is the same draft, now with its version.
    again = JournalDraft.from_payload(draft.to_payload())
    assert again == draft and draft.to_payload()["version"] == SCHEMA_VERSION


def test_a_one_operation_card_of_an_older_version_held_it_inline() -> None:
    inline = CAPTURED[0]["payload"]["ops"][0]
    draft = JournalDraft.from_payload(inline)
    assert [op.op_type for op in draft.operations] == [inline["op_type"]]


def test_a_payload_of_an_unknown_schema_is_refused() -> None:
    payload = {**JournalDraft(operations=(_sowing(),)).to_payload(), "version": 99}
    with pytest.raises(ValueError, match="99"):
        JournalDraft.from_payload(payload)


def test_a_change_returns_a_new_draft_and_leaves_the_old_one_as_it_was() -> None:
    draft = JournalDraft(operations=(_sowing(), _sowing(op_type="tillage")))
    before = draft.to_payload()

    repeated = draft.marked_duplicates({1: True})
    noted = draft.with_operation(0, draft.operations[0].with_pending({"field:гора": 7}))
    written = draft.with_operation(0, draft.operations[0].marked_written())

    assert draft.to_payload() == before
    assert [op.duplicate for op in repeated.operations] == [False, True]
    assert noted.operations[0].pending == {"field:гора": 7}
    assert written.operations[0].written and written.left == [1] and not written.done
    assert draft.left == [0, 1] and draft.operations[0].pending == {"field:гора": 0}
    assert written.unmarked().operations[0].written is False
    with pytest.raises(ValueError):
        draft.operations[0].written = True  # type: ignore[misc]
