"""Sheets streamed into an .xlsx with XlsxWriter's ``constant_memory`` mode.

Each row goes to the sheet's temporary file as soon as the next one starts, so a
season of a big farm never sits in memory as cells. XlsxWriter rather than
openpyxl's write-only mode: for 50,000 operations x 8 columns it took ~3 s against
openpyxl's ~6.5 s on the 2-core development VM (``bench/ingest.py``'s report figure
and a side-by-side script; docs/BENCHMARKS.md).

Cells carry no style object of their own: three shared ``Format`` objects (header,
date, date-time) and one per column that asks for a number format. Text is always
written with ``write_string``, never the guessing ``write``: a farmer's "=1+1" or
"http://..." stays text, never a formula or a link.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, BinaryIO

CellValue = str | int | float | date | datetime | None

#: Characters XML 1.0 cannot carry at all; a farmer's pasted text may hold them.
#: XlsxWriter would write them as ``_x0007_`` escapes, which spreadsheets then show.
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_MAX_CELL_TEXT = 32_767  # Excel's limit for one cell
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
_MAX_SHEET_NAME = 31
_CLEAN_CACHE = 50_000

DATE_FORMAT = "dd.mm.yyyy"
DATETIME_FORMAT = "dd.mm.yyyy hh:mm"
ONE_DECIMAL = "0.0"


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    width: float
    #: Number format for numbers in this column (dates and datetimes get theirs anyway).
    number_format: str | None = None


def clean_text(value: str) -> str:
    return _ILLEGAL_XML.sub("", value[:_MAX_CELL_TEXT])


def sheet_name(title: str, taken: Iterable[str]) -> str:
    """A name Excel accepts: no ``[]:*?/\\``, at most 31 characters, unique ignoring case."""
    name = _SHEET_NAME_FORBIDDEN.sub(" ", title).strip()[:_MAX_SHEET_NAME]
    used = {existing.lower() for existing in taken}
    name = name or f"Sheet{len(used) + 1}"
    candidate, suffix = name, 2
    while candidate.lower() in used:
        candidate = f"{name[:28]} {suffix}"
        suffix += 1
    return candidate


class SheetWriter:
    """Writes a workbook sheet by sheet, rows in order.

    Not thread-safe, but it may move between threads (one call at a time), which is
    how the report hands each page to a worker thread.
    """

    def __init__(self, buffer: BinaryIO) -> None:
        # XlsxWriter takes a third of a second to import: only a report pays for it,
        # not the bot's start-up (as matplotlib for charts).
        import xlsxwriter

        self._book: Any = xlsxwriter.Workbook(
            buffer,
            {
                "constant_memory": True,
                # Our own text only ever goes through write_string; these keep
                # XlsxWriter from second-guessing it anywhere else.
                "strings_to_formulas": False,
                "strings_to_urls": False,
            },
        )
        self._book.set_properties({"author": "Stepan"})
        self._header = self._book.add_format({"bold": True})
        self._date = self._book.add_format({"num_format": DATE_FORMAT})
        self._datetime = self._book.add_format({"num_format": DATETIME_FORMAT})
        self._number_formats: dict[str, Any] = {}
        self._names: list[str] = []
        self._sheet: Any = None
        self._columns: tuple[Any, ...] = ()
        self._row = 0
        # 50,000 rows share a few hundred distinct texts: clean each once.
        self._clean: dict[str, str] = {}

    def begin_sheet(self, title: str, columns: Sequence[Column]) -> None:
        if self._sheet is not None:
            raise RuntimeError("the previous sheet is still open")
        name = sheet_name(title, self._names)
        self._names.append(name)
        sheet = self._book.add_worksheet(name)
        for index, column in enumerate(columns):
            sheet.set_column(index, index, column.width)
        sheet.freeze_panes(1, 0)
        for index, column in enumerate(columns):
            sheet.write_string(0, index, clean_text(column.header), self._header)
        self._sheet = sheet
        self._columns = tuple(self._number_format(column.number_format) for column in columns)
        self._row = 0

    def write_rows(self, rows: Iterable[Sequence[CellValue]]) -> int:
        """Append rows to the open sheet; returns how many were written."""
        sheet = self._sheet
        if sheet is None:
            raise RuntimeError("no sheet is open")
        write_string, write_number = sheet.write_string, sheet.write_number
        write_datetime = sheet.write_datetime
        formats = self._columns
        cleaned = self._clean
        count = 0
        row = self._row
        for values in rows:
            row += 1
            count += 1
            for col, (value, number_format) in enumerate(zip(values, formats, strict=False)):
                # ``type() is`` first: the common cases without isinstance's MRO walk.
                kind = type(value)
                if value is None:
                    continue
                if kind is str:
                    text = cleaned.get(value)  # type: ignore[arg-type]
                    if text is None:
                        text = clean_text(value)  # type: ignore[arg-type]
                        if len(cleaned) < _CLEAN_CACHE:
                            cleaned[value] = text  # type: ignore[index]
                    write_string(row, col, text)
                elif kind is int or kind is float:
                    if math.isfinite(value):  # type: ignore[arg-type]
                        # Excel has no NaN or infinity: an empty cell is the honest value.
                        write_number(row, col, value, number_format)
                elif kind is date:
                    write_datetime(row, col, value, self._date)
                else:
                    self._write_other(sheet, row, col, value, number_format)
        self._row = row
        return count

    def _write_other(
        self, sheet: Any, row: int, col: int, value: CellValue, number_format: Any
    ) -> None:
        """A cell of the rarer types (datetimes, booleans, subclasses) or anything else
        as text."""
        if isinstance(value, datetime):
            sheet.write_datetime(row, col, _naive_utc(value), self._datetime)
        elif isinstance(value, bool):
            sheet.write_boolean(row, col, value)
        elif isinstance(value, date):
            sheet.write_datetime(row, col, value, self._date)
        elif isinstance(value, int | float):
            if math.isfinite(value):
                sheet.write_number(row, col, value, number_format)
        else:
            sheet.write_string(row, col, clean_text(str(value)))

    def end_sheet(self) -> None:
        if self._sheet is None:
            raise RuntimeError("no sheet is open")
        self._sheet = None
        self._clean.clear()

    def close(self) -> None:
        """Finish the package (zips the sheets' temporary files into the buffer)."""
        self._sheet = None
        self._book.close()

    def _number_format(self, spec: str | None) -> Any:
        if spec is None:
            return None
        if spec not in self._number_formats:
            self._number_formats[spec] = self._book.add_format({"num_format": spec})
        return self._number_formats[spec]


def _naive_utc(value: datetime) -> datetime:
    """Excel has no time zones: aware times are written in UTC (the header says so)."""
    if value.tzinfo is None:
        return value
    return value.astimezone(UTC).replace(tzinfo=None)
