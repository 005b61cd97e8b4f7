"""A journal card's draft: the operations read from one message, as the card shows
them and ✅ writes them, kept in ``operation_drafts.payload`` (db/farm_models.py).

A draft never changes in place: finding a repeat, noting an unknown name, writing
an operation each return a new draft, which the use case stores.

``version`` is the payload's schema. Version 1 is what the journal stored before the
draft was a model: no ``version`` key, ``{"ops": [...]}`` (a card older still held
its one operation inline), keys left out where the value was false or empty.
Version 2 is this model's: ``{"version": 2, "ops": [...]}`` with every key. Reading
upgrades an older payload, so cards waiting in a live database survive an upgrade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.farm.journal.parsing import ParsedOperation, Status

#: The schema :meth:`JournalDraft.to_payload` writes.
SCHEMA_VERSION = 2
#: The schema of a stored payload without a ``version`` key.
UNVERSIONED = 1
#: How much of the message a draft keeps (the operators' review shows it).
MESSAGE_CHARS = 500
#: The columns of an operation row (db/farm_models.py ``OperationRow``) an operation
#: of a card fills as they are; the rest (field, date, source) are set per row.
ROW_COLUMNS = (
    "op_type", "crop_id", "quantity", "unit", "product", "rate", "rate_unit", "amount",
    "amount_unit", "area_ha", "yield_t_ha", "status", "weather",
)  # fmt: skip


class DraftOperation(BaseModel):
    """One operation of a card: what the parser read (``ParsedOperation``'s fields),
    and what the card keeps about it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    op_type: str
    field_id: str | None = None
    field_phrase: str | None = None
    crop_id: str | None = None
    crop_phrase: str | None = None
    quantity: float | None = None
    unit: str | None = None
    product: str | None = None
    op_date: date
    status: Status
    unknown_terms: tuple[tuple[str, str], ...] = ()
    several_fields: tuple[str, ...] = ()
    field_names: tuple[str, ...] = ()
    crop_name: str | None = None
    product_phrase: str | None = None
    product_type: str | None = None
    rate: float | None = None
    rate_unit: str | None = None
    amount: float | None = None
    amount_unit: str | None = None
    area_ha: float | None = None
    yield_t_ha: float | None = None
    #: "kind:term" -> the pending term's id, for this operation's unknown names. 0
    #: until the farmer confirms the card: only then does the name go to the
    #: operators' review (issue 16 point 5), so a cancelled card leaves nothing.
    pending: Mapping[str, int] = Field(default_factory=dict)
    #: The message the operation was read from (its first ``MESSAGE_CHARS``).
    message: str = ""
    #: Field and crop ids -> the names the farm uses: what the card shows.
    names: Mapping[str, str] = Field(default_factory=dict)
    #: The same operation was written (or put on a card) a few minutes ago.
    duplicate: bool = False
    written: bool = False
    #: The weather at a spraying's time, from the forecast cache, once it is written
    #: (pipeline/weather/answers.py ``WeatherDesk.at_work``).
    weather: Mapping[str, Any] | None = None

    @classmethod
    def from_parsed(cls, parsed: ParsedOperation, message: str) -> DraftOperation:
        """The card's operation for ``parsed``, none of its unknown names noted yet."""
        pending = {f"{kind}:{term}": 0 for kind, term in parsed.unknown_terms}
        return cls.model_validate(
            {**asdict(parsed), "pending": pending, "message": message[:MESSAGE_CHARS]}
        )

    def target_fields(self) -> list[str | None]:
        """The fields the operation is written to, one row each."""
        return list(self.several_fields) or [self.field_id]

    def row_values(self) -> dict[str, Any]:
        """The operation row's columns this operation fills (``ROW_COLUMNS``)."""
        return {column: getattr(self, column) for column in ROW_COLUMNS}

    def named(self, names: Mapping[str, str]) -> DraftOperation:
        return self.model_copy(update={"names": dict(names)})

    def marked_duplicate(self, duplicate: bool) -> DraftOperation:
        return self.model_copy(update={"duplicate": duplicate})

    def with_pending(self, pending: Mapping[str, int]) -> DraftOperation:
        return self.model_copy(update={"pending": dict(pending)})

    def with_weather(self, weather: Mapping[str, Any] | None) -> DraftOperation:
        return self.model_copy(update={"weather": dict(weather) if weather else None})

    def marked_written(self) -> DraftOperation:
        return self.model_copy(update={"written": True, "duplicate": False})

    def unmarked(self) -> DraftOperation:
        """As a closed card lists it: neither written nor a repeat."""
        return self.model_copy(update={"written": False, "duplicate": False})


class JournalDraft(BaseModel):
    """Every operation read from one message: one card."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    version: int = SCHEMA_VERSION
    operations: tuple[DraftOperation, ...]

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> JournalDraft:
        """The draft stored in ``payload``, of this schema or an older one.

        Raises ``ValueError`` for a payload of an unknown (newer) schema."""
        if payload.get("kind") is not None:
            raise ValueError("an edit card, not a journal card")
        version = payload.get("version", UNVERSIONED)
        if version not in (UNVERSIONED, SCHEMA_VERSION):
            raise ValueError(f"journal draft schema {version!r} is not known")
        ops = payload.get("ops")
        if not isinstance(ops, list):
            ops = [payload]  # a version 1 card of one operation held it inline
        return cls(operations=tuple(DraftOperation.model_validate(op) for op in ops))

    def to_payload(self) -> dict[str, Any]:
        """The JSON the draft row keeps (``operation_drafts.payload``)."""
        return {
            "version": SCHEMA_VERSION,
            "ops": [operation.model_dump(mode="json") for operation in self.operations],
        }

    def has_item(self, index: int) -> bool:
        return 0 <= index < len(self.operations)

    @property
    def left(self) -> list[int]:
        """The operations not written yet, by index."""
        return [i for i, operation in enumerate(self.operations) if not operation.written]

    @property
    def done(self) -> bool:
        """Every operation is written."""
        return all(operation.written for operation in self.operations)

    def unwritten(self, item: int | None) -> list[int]:
        """Of operation ``item`` (every operation when None), those not written yet."""
        chosen = [item] if item is not None else range(len(self.operations))
        return [i for i in chosen if not self.operations[i].written]

    def with_operation(self, index: int, operation: DraftOperation) -> JournalDraft:
        operations = list(self.operations)
        operations[index] = operation
        return self.model_copy(update={"operations": tuple(operations)})

    def marked_duplicates(self, repeats: Mapping[int, bool]) -> JournalDraft:
        """Operation ``i`` marked a repeat or not, as ``repeats[i]`` says."""
        return self.model_copy(
            update={
                "operations": tuple(
                    operation.marked_duplicate(repeats[i]) if i in repeats else operation
                    for i, operation in enumerate(self.operations)
                )
            }
        )

    def unmarked(self) -> JournalDraft:
        """As a closed card lists it: no operation marked written or a repeat."""
        return self.model_copy(
            update={"operations": tuple(operation.unmarked() for operation in self.operations)}
        )
