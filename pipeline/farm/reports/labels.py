"""Names a farmer reads in reports, charts and alerts: operations, sensors, statuses,
fields and crops, from the catalog in the farmer's language."""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.language.texts import Texts
from pipeline.text import capitalised


def op_key(op_type: str) -> str:
    """``operation:irrigation`` and ``irrigation`` name the same operation."""
    return op_type.rsplit(":", 1)[-1].strip().lower()


def _catalog_label(texts: Texts, section: str, raw: str) -> str:
    key = f"reports.{section}.{op_key(raw)}"
    if texts.has(key):
        return texts.text(key)
    # An id the catalog does not know yet is still readable: "seed_treatment" ->
    # "seed treatment", never an error in the farmer's file.
    return op_key(raw).replace("_", " ")


def op_label(texts: Texts, op_type: str) -> str:
    """The operation's one name (``operation.<type>``, the journal card's word) as a
    report's cell or a list's item starts it: «Коткування», never a second name."""
    key = f"operation.{op_key(op_type)}"
    return capitalised(texts.text(key) if texts.has(key) else op_key(op_type).replace("_", " "))


def sensor_label(texts: Texts, sensor_type: str) -> str:
    return _catalog_label(texts, "sensor", sensor_type)


def status_label(texts: Texts, status: str) -> str:
    return _catalog_label(texts, "status", status)


class Labels:
    """Per-report label lookups, memoised: 50,000 rows share a dozen distinct names."""

    def __init__(
        self,
        texts: Texts,
        field_names: dict[str, str],
        crop_names: dict[str, str],
        shared_crops: Mapping[str, str] | None = None,
        *,
        timezone: str | None = None,
        waiting: Mapping[int, str] | None = None,
    ) -> None:
        self.shared_crops = dict(shared_crops or {})
        self.timezone = timezone
        self.texts = texts
        self.field_names = field_names
        self.crop_names = crop_names
        self._ops: dict[str, str] = {}
        self._statuses: dict[str, str] = {}
        self._sensors: dict[str, str] = {}
        self.no_field = texts.text("reports.no_field")
        #: Unknown fields by pending term id, as they are called (plan_fact.waiting_fields).
        self.waiting = dict(waiting or {})

    def text(self, key: str, **params: object) -> str:
        return self.texts.text(f"reports.{key}", **params)

    def field(self, field_id: str | None, pending_term_id: int | None = None) -> str:
        """The farm's name of the field; one the farmer named that waits for an
        operator by that name, marked; «без поля» only when none was named."""
        if field_id is None:
            name = self.waiting.get(pending_term_id) if pending_term_id is not None else None
            return self.text("field_unconfirmed", field=name) if name else self.no_field
        return self.field_names.get(field_id, field_id)

    def crop(self, crop_id: str | None) -> str | None:
        """The farm's name of the crop, else the shared list's; never ``crop:…``; with a
        capital, as the shared list writes every crop («Ясон» beside «Соняшник»)."""
        if crop_id is None:
            return None
        found = self.crop_names.get(crop_id) or self.shared_crops.get(crop_id)
        return capitalised(found or crop_id.partition(":")[2].replace("-", " ") or crop_id)

    def unit(self, unit: str | None) -> str | None:
        """A unit as the language writes it ("кг/га", not "kg/ha")."""
        if unit is None:
            return None
        key = f"unit.{unit}"
        return self.texts.text(key) if self.texts.has(key) else unit

    def op(self, op_type: str) -> str:
        if op_type not in self._ops:
            self._ops[op_type] = op_label(self.texts, op_type)
        return self._ops[op_type]

    def status(self, status: str) -> str:
        if status not in self._statuses:
            self._statuses[status] = status_label(self.texts, status)
        return self._statuses[status]

    def sensor(self, sensor_type: str) -> str:
        if sensor_type not in self._sensors:
            self._sensors[sensor_type] = sensor_label(self.texts, sensor_type)
        return self._sensors[sensor_type]
