"""Read one farm operation from a farmer's message, without an LLM.

"запиши полив 20 мм на Північному вчора", and the same in surzhyk, Russian or
English, comes down to a :class:`ParsedOperation`: what was (or will be) done,
where, to which crop, how much, with what, when, and whether it is done or planned.
Every word the parser knows is in ``pipeline/rules/operations.toml``; names of
fields and crops come from the farm's :class:`~pipeline.farm.dictionary.Dictionary`.

The message is read in passes over its tokens; each pass claims the tokens it
understood so that later passes do not read them again:

1. quantities ("1,5 л/га", "20мм", "45 ц/га" → 4.5 t/ha),
2. dates (12.05, 03.06.2026, 2026-05-12, "12 травня", вчора, "через 2 дні",
   weekdays),
3. status markers (запиши / заплануй / буде / вже ...),
4. fields: numbered ("поле 3", "3-є поле", "на третьому полі", "на полях 2, 6 і 9"),
   then known names, then crops, then names that look like a field but are
   unknown ("на полі Гора"),
5. the operation (a strong word, else what a product implies, else a weak word),
6. unknown crops ("посіяли люпин") and products (hint words and brand names).

A message that asks something, asks for a report, or negates the operation
("ще не посіяли") is not an operation: :func:`parse_operation` returns None.
Ids are never invented: a name the dictionary does not know is reported in
``unknown_terms`` and its id stays None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pipeline.farm.dictionary import (
    OPERATIONS_RULES,
    Dictionary,
    DictionaryEntry,
    Kind,
    MatchSettings,
    NameRules,
    TermSet,
    load_name_rules,
    load_toml,
)
from pipeline.text import APOSTROPHES, fold, is_number, tokenize

__all__ = [
    "OperationRules",
    "ParsedOperation",
    "Status",
    "load_operation_rules",
    "parse_operation",
]

Status = Literal["planned", "done"]
_Direction = Literal["next", "last"] | None

# Words keep inner apostrophes ("п'ятому"); numbers keep their decimal part.
_RAW_TOKEN_RE = re.compile(rf"\d+(?:[.,]\d+)?|[^\W\d_]+(?:[{APOSTROPHES}][^\W\d_]+)*")
_ISO_DATE_RE = re.compile(r"(?<![\d.,/])(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_DMY_DATE_RE = re.compile(r"(?<![\d.,/])(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})(?!\d|[.,/]\d)")
# Without a year the month needs two digits after a dot ("12.05", not "1.5 л").
_DM_DATE_RE = re.compile(r"(?<![\d.,/])(\d{1,2})(?:\.(\d{2})|/(\d{1,2}))(?!\d|[.,/-]\d)")
_SENTENCE_END = frozenset(".!?\n")
# Between a product word and the number that belongs to it: "КАС-32", "16:16:16".
_NUMBER_GLUE = frozenset({"", "-", ":", "‑", "–", "/"})
_MIN_YEAR, _MAX_YEAR = 1990, 2100
_CENTURY = 2000
_MAX_DAY = 31
_MIN_ALPHA_NAME = 3
_PRODUCT_NUMBER_DIGITS = 2
# Shorter operation words carry no tense ("sow", "сів").
_MIN_VERB_LEN = 5
# Claimed tokens that may stand between a sowing verb and its crop.
_SKIPPED_BEFORE_CROP = frozenset({"date", "quantity", "marker", "hint"})
# "ІІ декада" is a number, not a brand (folded Cyrillic і looks like Latin i).
_ROMAN_DIGITS = frozenset("ivxlі")


# =========================================================================== result


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedOperation:
    """One operation read from a message; ids are canonical or None, never made up.

    ``field_id`` is None when several fields are named: they are all in
    ``several_fields`` (canonical ids where known, the phrase otherwise).
    ``unknown_terms`` holds ``(kind, phrase)`` for names that were clearly given
    but are not in the dictionary, e.g. ``("field", "гора")``.
    """

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


# =========================================================================== rules


@dataclass(frozen=True, slots=True)
class _Measure:
    alone: str | None
    per_area: str | None
    per_tonne: str | None
    factor: float
    priority: int


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _endings(value: Any) -> tuple[str, ...]:
    """Word endings, folded like the tokens they are compared with."""
    return tuple(fold(item) for item in _strings(value))


@dataclass(frozen=True, slots=True)
class OperationRules:
    """``operations.toml`` compiled into term sets, once per process."""

    names: NameRules
    ops: TermSet
    weak_ops: TermSet
    crop_object_ops: frozenset[str]
    products: TermSet
    product_implies: Mapping[str, str]
    measures: TermSet
    measure_specs: Mapping[str, _Measure]
    per: TermSet
    area: TermSet
    tonne: TermSet
    relative: TermSet
    weekdays: TermSet
    next_markers: TermSet
    last_markers: TermSet
    future_prepositions: TermSet
    months: TermSet
    day_suffixes: TermSet
    offset_ahead: TermSet
    offset_back: TermSet
    offset_units: TermSet
    record: TermSet
    plan: TermSet
    future: TermSet
    done: TermSet
    past_endings: tuple[str, ...]
    future_endings: tuple[str, ...]
    questions: TermSet
    lead_fillers: TermSet
    auxiliaries: TermSet
    pronouns: TermSet
    blockers: TermSet
    negations: TermSet
    negation_gap: TermSet
    name_prepositions: TermSet
    adjective_endings: tuple[str, ...]
    noun_adjective_endings: tuple[str, ...]
    list_joiners: TermSet
    number_markers: TermSet
    numbered_before: TermSet
    number_label_cyrillic: str
    number_label_latin: str
    crop_markers: TermSet
    not_crop_endings: tuple[str, ...]

    @classmethod
    def from_rules(cls, raw: Mapping[str, Any], names: NameRules) -> OperationRules:
        settings = MatchSettings.from_rules(raw)
        ops_raw: Mapping[str, Any] = raw.get("operations", {})
        products_raw: Mapping[str, Any] = raw.get("products", {})
        units: Mapping[str, Any] = raw.get("units", {})
        dates: Mapping[str, Any] = raw.get("dates", {})
        status: Mapping[str, Any] = raw.get("status", {})
        gates: Mapping[str, Any] = raw.get("gates", {})
        fields: Mapping[str, Any] = raw.get("fields", {})

        def flat(section: Mapping[str, Any], key: str, label: str = "x") -> TermSet:
            return TermSet.flat(_strings(section.get(key)), label, settings)

        def numbered(groups: Any, first: int) -> TermSet:
            return TermSet.labelled(
                {str(n): _strings(words) for n, words in enumerate(groups or [], start=first)},
                settings,
            )

        measures = units.get("measures", {})
        return cls(
            names=names,
            ops=TermSet.labelled(
                {op: _strings(spec.get("words")) for op, spec in ops_raw.items()}, settings
            ),
            weak_ops=TermSet.labelled(
                {op: _strings(spec.get("weak")) for op, spec in ops_raw.items()}, settings
            ),
            crop_object_ops=frozenset(
                op for op, spec in ops_raw.items() if spec.get("crop_object")
            ),
            products=TermSet.labelled(
                {cat: _strings(spec.get("words")) for cat, spec in products_raw.items()},
                settings,
            ),
            product_implies={
                cat: str(spec["implies"])
                for cat, spec in products_raw.items()
                if spec.get("implies")
            },
            measures=TermSet.labelled(
                {name: _strings(spec.get("words")) for name, spec in measures.items()}, settings
            ),
            measure_specs={
                name: _Measure(
                    alone=spec.get("alone"),
                    per_area=spec.get("per_area"),
                    per_tonne=spec.get("per_tonne"),
                    factor=float(spec.get("factor", 1.0)),
                    priority=int(spec.get("priority", 1)),
                )
                for name, spec in measures.items()
            },
            per=flat(units, "per"),
            area=flat(units, "area"),
            tonne=flat(units, "tonne"),
            relative=TermSet(
                (
                    (word, str(int(item["days"])))
                    for item in dates.get("relative", [])
                    for word in _strings(item.get("words"))
                ),
                settings,
            ),
            weekdays=numbered(dates.get("weekdays"), 0),
            next_markers=flat(dates, "next_markers"),
            last_markers=flat(dates, "last_markers"),
            future_prepositions=flat(dates, "future_prepositions"),
            months=numbered(dates.get("months"), 1),
            day_suffixes=flat(dates, "day_suffixes"),
            offset_ahead=flat(dates, "offset_ahead"),
            offset_back=flat(dates, "offset_back"),
            offset_units=TermSet.labelled(
                {
                    "1": _strings(dates.get("offset_days")),
                    "7": _strings(dates.get("offset_weeks")),
                },
                settings,
            ),
            record=flat(status, "record"),
            plan=flat(status, "plan"),
            future=flat(status, "future"),
            done=flat(status, "done"),
            past_endings=_endings(status.get("past_endings")),
            future_endings=_endings(status.get("future_endings")),
            questions=flat(gates, "questions"),
            lead_fillers=flat(gates, "lead_fillers"),
            auxiliaries=flat(gates, "auxiliaries"),
            pronouns=flat(gates, "pronouns"),
            blockers=flat(gates, "blockers"),
            negations=flat(gates, "negations"),
            negation_gap=flat(gates, "negation_gap"),
            name_prepositions=flat(fields, "name_prepositions"),
            adjective_endings=_endings(fields.get("adjective_endings")),
            noun_adjective_endings=_endings(fields.get("noun_adjective_endings")),
            list_joiners=flat(fields, "list_joiners"),
            number_markers=flat(fields, "number_markers"),
            numbered_before=flat(fields, "numbered_before"),
            number_label_cyrillic=str(fields.get("number_label_cyrillic", "поле")),
            number_label_latin=str(fields.get("number_label_latin", "field")),
            crop_markers=flat(raw.get("crops", {}), "markers"),
            not_crop_endings=_endings(raw.get("crops", {}).get("not_crop_endings")),
        )

    def is_keyword(self, token: str) -> bool:
        """An operation, product, unit, date or status word."""
        return any(
            token in terms
            for terms in (
                self.ops,
                self.weak_ops,
                self.products,
                self.measures,
                self.relative,
                self.weekdays,
                self.record,
                self.plan,
                self.done,
            )
        )

    def is_vocabulary(self, token: str) -> bool:
        """A word with a meaning of its own here, so never a name or a brand."""
        return any(
            token in terms
            for terms in (
                self.names.stopwords,
                self.products,
                self.measures,
                self.area,
                self.relative,
                self.weekdays,
                self.months,
                self.questions,
                self.negations,
                self.blockers,
                self.record,
                self.plan,
                self.future,
                self.done,
                self.ops,
                self.weak_ops,
            )
        ) or any(self.names.is_generic(kind, token) for kind in ("field", "crop"))


@cache
def load_operation_rules(path: Path = OPERATIONS_RULES) -> OperationRules:
    return OperationRules.from_rules(load_toml(path), load_name_rules(path))


# =========================================================================== tokens


@dataclass(frozen=True, slots=True)
class _Token:
    raw: str
    norm: str
    start: int
    end: int

    @property
    def number(self) -> bool:
        return is_number(self.norm)

    @property
    def word(self) -> bool:
        return self.norm.isalpha()


def _tokens(text: str) -> tuple[_Token, ...]:
    out: list[_Token] = []
    for match in _RAW_TOKEN_RE.finditer(text):
        norm = "".join(tokenize(match.group()))
        if norm:
            out.append(_Token(match.group(), norm, match.start(), match.end()))
    return tuple(out)


@dataclass(slots=True)
class _Scan:
    """The message's tokens and which pass claimed each of them."""

    text: str
    tokens: tuple[_Token, ...]
    norms: tuple[str, ...]
    claimed: list[str | None]

    @classmethod
    def of(cls, text: str) -> _Scan:
        tokens = _tokens(text)
        return cls(text, tokens, tuple(t.norm for t in tokens), [None] * len(tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    def norm(self, i: int) -> str:
        """The folded token at ``i``; "" outside the message."""
        return self.norms[i] if 0 <= i < len(self.norms) else ""

    def free(self, i: int) -> bool:
        return 0 <= i < len(self.tokens) and self.claimed[i] is None

    def all_free(self, start: int, end: int) -> bool:
        return end <= len(self.tokens) and all(self.claimed[i] is None for i in range(start, end))

    def claim(self, start: int, end: int, role: str) -> None:
        for i in range(start, end):
            self.claimed[i] = role

    def raw(self, start: int, end: int) -> str:
        """The text as written from token ``start`` to token ``end - 1``."""
        return self.text[self.tokens[start].start : self.tokens[end - 1].end]

    def gap(self, i: int) -> str:
        """What stands between token ``i - 1`` and token ``i`` (spaces stripped)."""
        before = self.tokens[i - 1].end if i > 0 else 0
        return self.text[before : self.tokens[i].start].strip()

    def starts_sentence(self, i: int) -> bool:
        if i == 0:
            return True
        before = self.text[self.tokens[i - 1].end : self.tokens[i].start]
        return any(ch in _SENTENCE_END for ch in before)

    def capitalised(self, i: int) -> bool:
        raw = self.tokens[i].raw
        return raw[:1].isupper() and len(raw) > 1

    def latin(self, i: int) -> bool:
        return self.norms[i].isascii() and self.tokens[i].word

    def mostly_cyrillic(self) -> bool:
        words = [t for t in self.tokens if t.word]
        return sum(not t.norm.isascii() for t in words) > len(words) // 2

    def phrase(self, start: int, end: int) -> str:
        """A name as reported in ``unknown_terms``: lowercase, as written."""
        return " ".join(t.raw.lower() for t in self.tokens[start:end])


# =========================================================================== quantities


@dataclass(frozen=True, slots=True)
class _Quantity:
    value: float
    unit: str
    priority: int

    @property
    def rate(self) -> bool:
        """Per area or a depth of water: what a field operation is measured in."""
        return "/" in self.unit or self.unit == "mm"


def _number(token: str) -> float:
    return float(token.replace(",", "."))


def _find_quantities(scan: _Scan, rules: OperationRules) -> list[_Quantity]:
    found: list[_Quantity] = []
    for i, token in enumerate(scan.tokens):
        if not (token.number and scan.free(i)):
            continue
        hit = rules.measures.match_at(scan.norms, i + 1)
        if hit is None:
            continue
        spec = rules.measure_specs[hit[0]]
        unit, end = _unit_of(scan, rules, spec, i + 1 + hit[1])
        if unit is None:
            continue
        found.append(_Quantity(round(_number(token.norm) * spec.factor, 6), unit, spec.priority))
        scan.claim(i, end, "quantity")
    return found


def _unit_of(scan: _Scan, rules: OperationRules, spec: _Measure, i: int) -> tuple[str | None, int]:
    """The canonical unit of a measure ending at token ``i``, and where it ends:
    "л" alone, "л/га" / "л на гектар" per area, "л/т" per tonne."""
    for per_unit, terms in ((spec.per_area, rules.area), (spec.per_tonne, rules.tonne)):
        if per_unit is None:
            continue
        if scan.norm(i) in terms:
            return per_unit, i + 1
        if scan.norm(i) in rules.per and scan.norm(i + 1) in terms:
            return per_unit, i + 2
    return spec.alone, i


def _best_quantity(found: Sequence[_Quantity]) -> _Quantity | None:
    best: _Quantity | None = None
    for quantity in found:
        if best is None or quantity.priority > best.priority:
            best = quantity
    return best


# =========================================================================== dates


@dataclass(frozen=True, slots=True)
class _DateHit:
    """A date found at token ``pos``: fixed, or a weekday resolved once status is known."""

    pos: int
    value: date | None = None
    weekday: int | None = None
    direction: _Direction = None


_NO_DIRECTION: _Direction = None


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _tokens_in(scan: _Scan, start: int, end: int) -> tuple[int, int] | None:
    """Token indices covering characters ``start:end``, if all are still free."""
    inside = [i for i, t in enumerate(scan.tokens) if t.start >= start and t.end <= end]
    if not inside or not scan.all_free(inside[0], inside[-1] + 1):
        return None
    return inside[0], inside[-1] + 1


def _numeric_dates(scan: _Scan, today: date) -> list[_DateHit]:
    hits: list[_DateHit] = []
    for pattern in (_ISO_DATE_RE, _DMY_DATE_RE, _DM_DATE_RE):
        for match in pattern.finditer(scan.text):
            span = _tokens_in(scan, match.start(), match.end())
            if span is None:
                continue
            value = _date_from_match(pattern, match, today)
            if value is not None:
                scan.claim(*span, "date")
                hits.append(_DateHit(span[0], value))
    return hits


def _date_from_match(pattern: re.Pattern[str], match: re.Match[str], today: date) -> date | None:
    if pattern is _ISO_DATE_RE:
        year, month, day = (int(g) for g in match.groups())
        return _safe_date(year, month, day)
    us_order = "/" in match.group(0)
    if pattern is _DMY_DATE_RE:
        day, month, year = (int(g) for g in match.groups())
        return _day_month(year + _CENTURY if year < 100 else year, day, month, us_order)
    day = int(match.group(1))
    month = int(match.group(2) or match.group(3))
    return _day_month(today.year, day, month, us_order)


def _day_month(year: int, day: int, month: int, us_order: bool) -> date | None:
    """Day first; "05/20" with slashes can only be the American month first."""
    found = _safe_date(year, month, day)
    if found is None and us_order:
        return _safe_date(year, day, month)
    return found


def _month_dates(scan: _Scan, rules: OperationRules, today: date) -> list[_DateHit]:
    """ "12 травня", "12-го мая 2026", "May 12", "12th of May"."""
    hits: list[_DateHit] = []
    for i in range(len(scan)):
        if not (scan.free(i) and _day_number(scan, i)):
            continue
        j = i + 1
        while j < len(scan) and scan.free(j) and scan.norms[j] in rules.day_suffixes:
            j += 1
        month = rules.months.label(scan.norms[j]) if scan.free(j) else None
        start, end = i, j + 1
        if month is None and i > 0 and scan.free(i - 1):
            month, start, end = rules.months.label(scan.norms[i - 1]), i - 1, i + 1
        if month is None:
            continue
        year, end = _year_after(scan, end, today.year)
        value = _safe_date(year, int(month), int(scan.norms[i]))
        if value is not None:
            scan.claim(start, end, "date")
            hits.append(_DateHit(start, value))
    return hits


def _day_number(scan: _Scan, i: int) -> bool:
    norm = scan.norms[i]
    return norm.isdigit() and 1 <= int(norm) <= _MAX_DAY


def _year_after(scan: _Scan, i: int, default: int) -> tuple[int, int]:
    if scan.free(i) and scan.norms[i].isdigit() and _MIN_YEAR <= int(scan.norms[i]) <= _MAX_YEAR:
        return int(scan.norms[i]), i + 1
    return default, i


def _relative_dates(scan: _Scan, rules: OperationRules, today: date) -> list[_DateHit]:
    hits: list[_DateHit] = []
    for i in range(len(scan)):
        if not scan.free(i):
            continue
        hit = rules.relative.match_at(scan.norms, i)
        if hit is not None and scan.all_free(i, i + hit[1]):
            scan.claim(i, i + hit[1], "date")
            hits.append(_DateHit(i, today + timedelta(days=int(hit[0]))))
    return hits


def _offset_dates(scan: _Scan, rules: OperationRules, today: date) -> list[_DateHit]:
    """ "через 2 дні", "через тиждень", "in 3 days" ahead; "2 дні тому", "3 days ago" back."""
    hits: list[_DateHit] = []
    for i in range(len(scan)):
        if not scan.free(i):
            continue
        count, j = 1, i
        ahead = scan.norms[i] in rules.offset_ahead
        if ahead:
            j += 1
        if scan.free(j) and scan.norms[j].isdigit():
            count, j = int(scan.norms[j]), j + 1
        unit = rules.offset_units.label(scan.norms[j]) if scan.free(j) else None
        if unit is None:
            continue
        back = scan.free(j + 1) and scan.norms[j + 1] in rules.offset_back
        if ahead == back:
            continue
        days = count * int(unit) * (1 if ahead else -1)
        scan.claim(i, j + 2 if back else j + 1, "date")
        hits.append(_DateHit(i, today + timedelta(days=days)))
    return hits


def _weekday_dates(scan: _Scan, rules: OperationRules) -> list[_DateHit]:
    hits: list[_DateHit] = []
    for i in range(len(scan)):
        weekday = rules.weekdays.label(scan.norms[i]) if scan.free(i) else None
        if weekday is None:
            continue
        start, direction = i, _NO_DIRECTION
        before = scan.norms[i - 1] if scan.free(i - 1) else ""
        if before in rules.next_markers or before in rules.future_prepositions:
            start, direction = i - 1, "next"
        elif before in rules.last_markers:
            start, direction = i - 1, "last"
        scan.claim(start, i + 1, "date")
        hits.append(_DateHit(start, weekday=int(weekday), direction=direction))
    return hits


def _find_dates(scan: _Scan, rules: OperationRules, today: date) -> list[_DateHit]:
    hits = [
        *_numeric_dates(scan, today),
        *_month_dates(scan, rules, today),
        *_relative_dates(scan, rules, today),
        *_offset_dates(scan, rules, today),
        *_weekday_dates(scan, rules),
    ]
    return sorted(hits, key=lambda hit: hit.pos)


def _resolve_date(hit: _DateHit | None, today: date, ahead: bool) -> date:
    """A weekday is the most recent one (today included), or the next one when the
    operation is ahead; "наступного"/"минулого" fix the direction."""
    if hit is None:
        return today
    if hit.value is not None:
        return hit.value
    weekday = hit.weekday if hit.weekday is not None else today.weekday()
    if hit.direction == "next" or (ahead and hit.direction != "last"):
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    if hit.direction == "last":
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    return today - timedelta(days=(today.weekday() - weekday) % 7)


# =========================================================================== markers


@dataclass(slots=True)
class _Signals:
    record: bool = False
    plan: bool = False
    done: bool = False


def _find_markers(scan: _Scan, rules: OperationRules) -> _Signals:
    signals = _Signals()
    for i, norm in enumerate(scan.norms):
        if not scan.free(i):
            continue
        record, plan = norm in rules.record, norm in rules.plan or norm in rules.future
        done = norm in rules.done
        if record or plan or done:
            signals.record |= record
            signals.plan |= plan
            signals.done |= done
            scan.claim(i, i + 1, "marker")
    return signals


def _verb_signals(norm: str, rules: OperationRules, signals: _Signals) -> None:
    """Tense of the operation word itself: "посіяли" done, "посіємо"/"полити" ahead."""
    if len(norm) < _MIN_VERB_LEN:
        return
    if norm.endswith(rules.past_endings):
        signals.done = True
    elif norm.endswith(rules.future_endings):
        signals.plan = True


# =========================================================================== names


@dataclass(frozen=True, slots=True)
class _NameHit:
    kind: Kind
    pos: int
    phrase: str
    entry: DictionaryEntry | None
    unknown: str | None = None

    @property
    def key(self) -> str:
        if self.entry is not None:
            return self.entry.canonical_id
        return self.unknown or self.phrase


def _numbered_fields(scan: _Scan, rules: OperationRules, dictionary: Dictionary) -> list[_NameHit]:
    """ "поле 3", "полі №7", "3-є поле", "на третьому полі", "на полях 2, 6 і 9"."""
    hits: list[_NameHit] = []
    names = rules.names
    for i, norm in enumerate(scan.norms):
        if not (scan.free(i) and names.is_generic("field", norm)):
            continue
        found = _numbers_after(scan, rules, i) or _number_before(scan, rules, i)
        for number, start, end in found:
            hits.append(_numbered_hit(scan, rules, dictionary, i, number, start, end))
    return hits


def _numbers_after(scan: _Scan, rules: OperationRules, noun: int) -> list[tuple[str, int, int]]:
    """Numbers listed after a field noun, each with the token span to report."""
    found: list[tuple[str, int, int]] = []
    first = noun + 1
    while scan.free(first) and scan.norms[first] in rules.number_markers:
        first += 1
    end = noun + 1
    j: int | None = first
    while j is not None and _field_number(scan, j) and not (found and _dated(scan, rules, j)):
        found.extend((n, noun if not found else j, j + 1) for n in _split_numbers(scan.norms[j]))
        end = j + 1
        j = _next_listed(scan, rules, end)
    if found:
        scan.claim(noun, end, "field")
    return found


def _field_number(scan: _Scan, i: int) -> bool:
    """A whole number (or a "2,6" list), free: "12.05" is a date, not field 12."""
    return _number_at(scan, i) and "." not in scan.norms[i]


def _dated(scan: _Scan, rules: OperationRules, i: int) -> bool:
    """A number that starts a date: "10 May", "3 дні тому"."""
    following = scan.norm(i + 1)
    return following in rules.months or following in rules.offset_units


def _next_listed(scan: _Scan, rules: OperationRules, i: int) -> int | None:
    """Where the next number of "2, 6 і 9" is: after a comma or a joining word."""
    if scan.free(i) and scan.norms[i] in rules.list_joiners:
        return i + 1
    if i < len(scan) and scan.gap(i) == ",":
        return i
    return None


def _number_at(scan: _Scan, i: int) -> bool:
    return scan.free(i) and scan.tokens[i].number


def _split_numbers(norm: str) -> list[str]:
    """ "2,6" after "полях" is a list (2 and 6), not two and six tenths."""
    return [part for part in norm.split(",") if part]


def _number_before(scan: _Scan, rules: OperationRules, noun: int) -> list[tuple[str, int, int]]:
    """ "3-є поле" (a number with an ordinal ending) or "третьому полі"."""
    j = noun - 1
    if scan.free(j) and (ordinal := rules.names.ordinals.label(scan.norms[j])) is not None:
        scan.claim(j, noun + 1, "field")
        return [(ordinal, j, noun + 1)]
    if scan.free(j) and scan.norms[j] in rules.names.ordinal_suffixes and _number_at(scan, j - 1):
        scan.claim(j - 1, noun + 1, "field")
        return [(scan.norms[j - 1], j - 1, noun + 1)]
    # "на 3 полі", "3 поле"; not "2 поля" (two fields).
    if _field_number(scan, j) and scan.norms[noun] in rules.numbered_before:
        scan.claim(j, noun + 1, "field")
        return [(scan.norms[j], j, noun + 1)]
    return []


def _numbered_hit(
    scan: _Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    noun: int,
    number: str,
    start: int,
    end: int,
) -> _NameHit:
    noun_norm = scan.norms[noun]
    entry = dictionary.match_words("field", (noun_norm, number))
    phrase = scan.raw(start, end)
    if entry is not None:
        return _NameHit("field", start, phrase, entry)
    label = rules.number_label_latin if noun_norm.isascii() else rules.number_label_cyrillic
    return _NameHit("field", start, phrase, None, f"{label} {int(float(number))}")


def _known_names(
    scan: _Scan, rules: OperationRules, dictionary: Dictionary, kind: Kind
) -> list[_NameHit]:
    """Names the dictionary knows, longest first from the left."""
    hits: list[_NameHit] = []
    if not dictionary.has(kind):
        return hits
    longest = dictionary.max_words(kind)
    i = 0
    while i < len(scan):
        found = _known_name_at(scan, rules, dictionary, kind, i, longest)
        if found is None:
            i += 1
            continue
        entry, end = found
        hits.append(_NameHit(kind, i, scan.raw(i, end), entry))
        scan.claim(i, end, kind)
        i = end
    return hits


def _known_name_at(
    scan: _Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    kind: Kind,
    start: int,
    longest: int,
) -> tuple[DictionaryEntry, int] | None:
    names = rules.names
    if not scan.free(start) or names.is_stopword(scan.norms[start]):
        return None
    for end in range(min(len(scan), start + longest), start, -1):
        if not scan.all_free(start, end) or names.is_stopword(scan.norms[end - 1]):
            continue
        words = scan.norms[start:end]
        core = names.core(kind, words)
        # Numbers name a field only next to a field noun (handled above).
        if not core or all(is_number(part) for part in core):
            continue
        # A word the parser knows ("applied", "посів") is a name only when spelled so.
        fuzzy = not any(rules.is_keyword(word) for word in words)
        entry = dictionary.match_words(kind, words, fuzzy=fuzzy)
        if entry is not None:
            return entry, end
    return None


def _plain_word(scan: _Scan, rules: OperationRules, i: int) -> bool:
    """A free word that means nothing to the parser: a candidate name or brand."""
    if not scan.free(i) or not scan.tokens[i].word:
        return False
    norm = scan.norms[i]
    if len(norm) < 2 or set(norm) <= _ROMAN_DIGITS:
        return False
    return not rules.is_vocabulary(norm)


def _unknown_fields(scan: _Scan, rules: OperationRules) -> list[_NameHit]:
    """Field names the dictionary lacks: "на полі Гора", "на Східному полі", "на Східному"."""
    hits: list[_NameHit] = []
    for i, norm in enumerate(scan.norms):
        if not scan.free(i):
            continue
        span: tuple[int, int] | None = None
        if rules.names.is_generic("field", norm):
            span = _name_after_noun(scan, rules, i) or _name_before_noun(scan, rules, i)
            scan.claim(i, i + 1, "field")
        elif norm in rules.name_prepositions:
            span = _name_after_preposition(scan, rules, i)
        if span is not None:
            hits.append(_unknown_hit(scan, "field", *span))
    return hits


def _unknown_hit(scan: _Scan, kind: Kind, start: int, end: int) -> _NameHit:
    scan.claim(start, end, kind)
    return _NameHit(kind, start, scan.raw(start, end), None, scan.phrase(start, end))


def _name_after_noun(scan: _Scan, rules: OperationRules, noun: int) -> tuple[int, int] | None:
    j = noun + 1
    if not _plain_word(scan, rules, j) or len(scan.norms[j]) < _MIN_ALPHA_NAME:
        return None
    end = j + 1
    if scan.capitalised(j) and _plain_word(scan, rules, end) and scan.capitalised(end):
        end += 1
    return j, end


def _name_before_noun(scan: _Scan, rules: OperationRules, noun: int) -> tuple[int, int] | None:
    j = noun - 1
    if not _plain_word(scan, rules, j):
        return None
    if scan.latin(j) or scan.norms[j].endswith(rules.noun_adjective_endings):
        return j, noun
    return None


def _name_after_preposition(
    scan: _Scan, rules: OperationRules, prep: int
) -> tuple[int, int] | None:
    j = prep + 1
    if not _plain_word(scan, rules, j) or len(scan.norms[j]) < _MIN_ALPHA_NAME:
        return None
    named = scan.capitalised(j) and not scan.starts_sentence(j)
    if named or (not scan.latin(j) and scan.norms[j].endswith(rules.adjective_endings)):
        return j, j + 1
    return None


def _crop_word(scan: _Scan, rules: OperationRules, i: int) -> bool:
    """A plain word that could be a crop; brand-styled words ("ДКС", "Pioneer") are not."""
    if not _plain_word(scan, rules, i) or len(scan.norms[i]) < _MIN_ALPHA_NAME:
        return False
    if scan.norms[i].endswith(rules.not_crop_endings):
        return False
    return not (scan.tokens[i].raw.isupper() or (scan.latin(i) and scan.mostly_cyrillic()))


def _unknown_crops(scan: _Scan, rules: OperationRules, op: _OpHit) -> list[_NameHit]:
    """ "посіяли люпин", "sowed lupin", "культура люпин": a crop named but not known."""
    hits: list[_NameHit] = []
    if op.worded and op.op_type in rules.crop_object_ops:
        j = op.pos + 1
        while j < len(scan) and scan.claimed[j] in _SKIPPED_BEFORE_CROP:
            j += 1
        if _crop_word(scan, rules, j):
            hits.append(_unknown_hit(scan, "crop", j, j + 1))
    for i, norm in enumerate(scan.norms):
        if norm in rules.crop_markers and _plain_word(scan, rules, i + 1):
            hits.append(_unknown_hit(scan, "crop", i + 1, i + 2))
    return hits


# =========================================================================== operation


@dataclass(frozen=True, slots=True)
class _OpHit:
    op_type: str
    pos: int
    strong: bool
    #: Read from the operation's own word (not implied by a product).
    worded: bool = True


def _find_operations(scan: _Scan, rules: OperationRules, dictionary: Dictionary) -> list[_OpHit]:
    hits = [
        _OpHit(hit.entry.canonical_id, hit.pos, True)
        for hit in _known_names(scan, rules, dictionary, "operation")
        if hit.entry is not None
    ]
    for terms, strong in ((rules.ops, True), (rules.weak_ops, False)):
        for i in range(len(scan)):
            found = terms.match_at(scan.norms, i) if scan.free(i) else None
            if found is not None and scan.all_free(i, i + found[1]):
                scan.claim(i, i + found[1], "operation")
                hits.append(_OpHit(found[0], i, strong))
    return sorted(hits, key=lambda hit: (not hit.strong, hit.pos))


def _product_hints(scan: _Scan, rules: OperationRules) -> list[tuple[int, str]]:
    found = [
        (i, label)
        for i, norm in enumerate(scan.norms)
        if scan.free(i) and (label := rules.products.label(norm)) is not None
    ]
    for i, _ in found:
        scan.claim(i, i + 1, "hint")
    return found


def _choose_operation(
    ops: Sequence[_OpHit],
    hints: Sequence[tuple[int, str]],
    rules: OperationRules,
    evidence: bool,
) -> _OpHit | None:
    """A strong word; else what a product implies; else a weak word.

    A product alone ("селітра 150 кг/га") makes an operation only with evidence:
    a weak word, a record/plan marker or a rate.
    """
    if ops and ops[0].strong:
        return ops[0]
    implied = [
        (pos, rules.product_implies[cat]) for pos, cat in hints if cat in rules.product_implies
    ]
    if implied and (ops or evidence):
        pos, op_type = implied[0]
        return _OpHit(op_type, ops[0].pos if ops else pos, False, worded=bool(ops))
    return ops[0] if ops else None


# =========================================================================== gates


def _is_question(scan: _Scan, rules: OperationRules, signals: _Signals) -> bool:
    if signals.record:
        return False
    if "?" in scan.text:
        return True
    i = 0
    while i < len(scan) and scan.norms[i] in rules.lead_fillers:
        i += 1
    if i >= len(scan):
        return False
    if scan.norms[i] in rules.questions:
        return True
    return (
        scan.norms[i] in rules.auxiliaries
        and i + 1 < len(scan)
        and (scan.norms[i + 1] in rules.pronouns)
    )


def _is_blocked(scan: _Scan, rules: OperationRules) -> bool:
    """A report, a chart, advice, a cancellation: not an operation to record."""
    return any(rules.blockers.match_at(scan.norms, i) is not None for i in range(len(scan)))


def _is_negated(scan: _Scan, rules: OperationRules, op_pos: int) -> bool:
    j = op_pos - 1
    while j >= 0 and scan.norms[j] in rules.negation_gap:
        j -= 1
    return j >= 0 and scan.norms[j] in rules.negations


# =========================================================================== products


def _find_product(
    scan: _Scan,
    rules: OperationRules,
    dictionary: Dictionary,
    hints: Sequence[tuple[int, str]],
) -> str | None:
    """The brand as written ("Абакус"); else the product words ("аміачною селітрою").

    A product the farm's dictionary knows is given by its display name.
    """
    known = _known_names(scan, rules, dictionary, "product")
    if known and known[0].entry is not None:
        return known[0].entry.display
    brands = _brand_positions(scan, rules, {pos for pos, _ in hints})
    if brands:
        return _join_groups(scan, brands)
    if hints:
        return _join_groups(scan, [pos for pos, _ in hints])
    return None


def _brand_positions(scan: _Scan, rules: OperationRules, hints: set[int]) -> list[int]:
    """Words that name a product: right after a hint ("фунгіцид абакус"), capitalised
    inside a sentence ("Абакус"), Latin in a Cyrillic message ("Roundup"), and the
    capitalised words that follow one of those ("Дуал Голд")."""
    cyrillic = scan.mostly_cyrillic()
    brands: list[int] = []
    for i in range(len(scan)):
        if not _plain_word(scan, rules, i):
            continue
        styled = scan.capitalised(i) or scan.latin(i)
        if (
            (i - 1) in hints
            or ((i - 1) in brands and styled)
            or (scan.capitalised(i) and not scan.starts_sentence(i))
            or (cyrillic and scan.latin(i))
        ):
            brands.append(i)
    for i in brands:
        scan.claim(i, i + 1, "product")
    return brands


def _join_groups(scan: _Scan, positions: Sequence[int]) -> str:
    """Adjacent product words as one written phrase; separate phrases joined by ", "."""
    groups: list[tuple[int, int]] = []
    for pos in sorted(positions):
        start, end = _glued_span(scan, pos)
        end = _attach_numbers(scan, end)
        if groups and groups[-1][1] >= start:
            groups[-1] = (groups[-1][0], max(end, groups[-1][1]))
        else:
            groups.append((start, end))
    return ", ".join(scan.raw(start, end) for start, end in groups)


def _glued_span(scan: _Scan, pos: int) -> tuple[int, int]:
    """A code written without spaces is one name: "П64ЛЕ137", "Bi-58"."""
    start, end = pos, pos + 1
    while start > 0 and scan.free(start - 1) and _glued(scan, start):
        start -= 1
    while scan.free(end) and _glued(scan, end):
        end += 1
    scan.claim(start, end, "product")
    return start, end


def _glued(scan: _Scan, i: int) -> bool:
    """Token ``i`` follows token ``i - 1`` with no space (a hyphen at most)."""
    between = scan.text[scan.tokens[i - 1].end : scan.tokens[i].start]
    return between in ("", "-")


def _attach_numbers(scan: _Scan, i: int) -> int:
    """ "КАС-32", "NPK 16:16:16", "Дуал Голд 960": numbers that are part of the name."""
    while _number_at(scan, i):
        glued = scan.gap(i) in _NUMBER_GLUE and scan.text[scan.tokens[i - 1].end] != " "
        if not glued and len(scan.norms[i]) < _PRODUCT_NUMBER_DIGITS:
            break
        scan.claim(i, i + 1, "product")
        i += 1
    return i


# =========================================================================== assembly


def _name_result(hits: Sequence[_NameHit]) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(id, phrase, several): one name, or None and every distinct name when several."""
    distinct: dict[str, _NameHit] = {}
    for hit in sorted(hits, key=lambda h: h.pos):
        distinct.setdefault(hit.key, hit)
    if not distinct:
        return None, None, ()
    if len(distinct) > 1:
        return None, None, tuple(distinct)
    only = next(iter(distinct.values()))
    return (only.entry.canonical_id if only.entry else None), only.phrase, ()


def _unknown_terms(hits: Iterable[_NameHit]) -> tuple[tuple[str, str], ...]:
    seen: dict[tuple[str, str], None] = {}
    for hit in hits:
        if hit.entry is None and hit.unknown:
            seen.setdefault((hit.kind, hit.unknown), None)
    return tuple(seen)


def parse_operation(text: str, dictionary: Dictionary, today: date) -> ParsedOperation | None:
    """The operation ``text`` records or plans, or None when it is about something else."""
    rules = load_operation_rules()
    scan = _Scan.of(text)
    if not scan.tokens or _is_blocked(scan, rules):
        return None
    quantities = _find_quantities(scan, rules)
    # Numbered fields before dates: "поле 3 тиждень тому" is not three weeks ago.
    fields = _numbered_fields(scan, rules, dictionary)
    dates = _find_dates(scan, rules, today)
    signals = _find_markers(scan, rules)
    fields += _known_names(scan, rules, dictionary, "field")
    crops = _known_names(scan, rules, dictionary, "crop")
    ops = _find_operations(scan, rules, dictionary)
    hints = _product_hints(scan, rules)
    quantity = _best_quantity(quantities)
    evidence = signals.record or signals.plan or (quantity is not None and quantity.rate)
    op = _choose_operation(ops, hints, rules, evidence)
    if op is None or _is_question(scan, rules, signals) or _is_negated(scan, rules, op.pos):
        return None
    if op.worded:
        _verb_signals(scan.norms[op.pos], rules, signals)
    fields += _unknown_fields(scan, rules)
    crops += _unknown_crops(scan, rules, op)
    product = _find_product(scan, rules, dictionary, hints)
    ahead = signals.plan and not signals.done
    op_date = _resolve_date(dates[0] if dates else None, today, ahead)
    field_id, field_phrase, several = _name_result(fields)
    crop_id, crop_phrase, _ = _name_result(crops[:1])
    return ParsedOperation(
        op_type=op.op_type,
        field_id=field_id,
        field_phrase=field_phrase,
        crop_id=crop_id,
        crop_phrase=crop_phrase,
        quantity=quantity.value if quantity else None,
        unit=quantity.unit if quantity else None,
        product=product,
        op_date=op_date,
        status="planned" if op_date > today or ahead else "done",
        unknown_terms=_unknown_terms([*fields, *crops]),
        several_fields=several,
    )
