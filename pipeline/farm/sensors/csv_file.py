"""Sensor readings from a CSV file (operators send one to the bot).

Columns: sensor_id, sensor_type, value, unit, measured_at, field_id (unit and
field_id may be empty or absent); a header row is required; the separator is ``;``
or ``,``. A ``;`` file is what a spreadsheet with a decimal comma saves, so there a
value like ``23,5`` is read as 23.5. Rows then go through the same validation as
the HTTP endpoint (``pipeline.farm.sensors.readings.parse_batch``); errors name file lines.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pipeline.farm.sensors.readings import (
    MAX_BATCH,
    BatchTooLarge,
    InvalidBatch,
    ItemError,
    ReadingIn,
    SensorTypes,
)
from pipeline.farm.sensors.readings import parse_batch as validate_items

REQUIRED = ("sensor_id", "sensor_type", "value", "measured_at")
OPTIONAL = ("unit", "field_id")
#: Telegram lets bots download files up to 20 MB; 10,000 rows are well under 1 MB.
MAX_CSV_BYTES = 8 * 1024 * 1024


class InvalidCsv(Exception):
    """The file as a whole cannot be read: ``code`` is a catalog key suffix
    (``sensors.csv_<code>``), ``params`` its placeholders."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class CsvBatch:
    readings: list[ReadingIn]
    lines: list[int]  # the file line of each reading (the header is line 1)

    def with_lines(self, error: InvalidBatch) -> InvalidBatch:
        """An error from ``ingest`` (indexes into ``readings``) with file lines."""
        return InvalidBatch(_to_lines(error.errors, self.lines), error.total)


def _to_lines(errors: Sequence[ItemError], lines: Sequence[int]) -> list[ItemError]:
    return [dataclasses.replace(e, index=lines[e.index]) for e in errors if e.index < len(lines)]


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Excel on a Ukrainian Windows saves "CSV" in cp1251.
        try:
            return data.decode("cp1251")
        except UnicodeDecodeError:
            raise InvalidCsv("not_text") from None


def _delimiter(header: str) -> str:
    return ";" if header.count(";") > header.count(",") else ","


def parse_csv(data: bytes, types: SensorTypes, *, now: datetime | None = None) -> CsvBatch:
    """Rows of the file as validated readings. Raises InvalidCsv (the file), or
    BatchTooLarge, or InvalidBatch whose ``index`` values are FILE LINES."""
    if len(data) > MAX_CSV_BYTES:
        raise InvalidCsv("too_big", limit_mb=str(MAX_CSV_BYTES // (1024 * 1024)))
    text = _decode(data)
    first_line = text.split("\n", 1)[0]
    if not first_line.strip():
        raise InvalidCsv("empty")
    delimiter = _delimiter(first_line)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    positions = _column_positions(next(reader))
    items: list[dict[str, str | None]] = []
    lines: list[int] = []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue  # spreadsheets leave blank lines at the end
        items.append(_item(row, positions, delimiter))
        lines.append(reader.line_num)
        if len(items) > MAX_BATCH:
            raise BatchTooLarge(len(items))
    if not items:
        raise InvalidCsv("no_rows")
    try:
        readings = validate_items(items, types, now=now)
    except InvalidBatch as error:
        raise InvalidBatch(_to_lines(error.errors, lines), error.total) from None
    return CsvBatch(readings, lines)


def _column_positions(header_row: Sequence[str]) -> dict[str, int]:
    """Where each known column is; raises InvalidCsv when a required one is missing."""
    header = [name.strip().lower() for name in header_row]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InvalidCsv("missing_columns", columns=", ".join(missing))
    return {name: header.index(name) for name in (*REQUIRED, *OPTIONAL) if name in header}


def _item(row: Sequence[str], positions: dict[str, int], delimiter: str) -> dict[str, str | None]:
    """One row as the HTTP endpoint's item; a ``;`` file's value has a decimal comma."""
    item = {name: (row[pos].strip() if pos < len(row) else None) for name, pos in positions.items()}
    value = item.get("value")
    if delimiter == ";" and value:
        item["value"] = value.replace(",", ".")
    return item
