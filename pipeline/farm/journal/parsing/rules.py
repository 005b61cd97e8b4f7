"""``pipeline/rules/operations.toml`` compiled into term sets, once (``bot/wiring/factory.py``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.farm.dictionary import OPERATIONS_RULES, NameRules, load_toml
from pipeline.farm.products import PRODUCTS_RULES, Catalogue
from pipeline.farm.words.dates import DateWords
from pipeline.farm.words.units import Units
from pipeline.grammar import Grammar, TermSet
from pipeline.text import fold

__all__ = ["OperationRules"]


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _endings(value: Any) -> tuple[str, ...]:
    """Word endings, folded like the tokens they are compared with."""
    return tuple(fold(item) for item in _strings(value))


@dataclass(frozen=True, slots=True)
class OperationRules:
    """Every word the parser knows: ``operations.toml``, the date words and the
    product catalogue."""

    names: NameRules
    dates: DateWords
    units: Units
    catalogue: Catalogue
    ops: TermSet
    weak_ops: TermSet
    crop_object_ops: frozenset[str]
    application_ops: frozenset[str]
    letter_swaps: tuple[tuple[str, str], ...]
    #: "досіяли", "дообприскали": a prefix that finishes the work an operation word
    #: names; tried when the word matches nothing as written.
    completive_prefixes: tuple[str, ...]
    record: TermSet
    plan: TermSet
    future: TermSet
    done: TermSet
    past_endings: tuple[str, ...]
    future_endings: tuple[str, ...]
    present_endings: tuple[str, ...]
    future_suffixes: tuple[str, ...]
    product_doses: frozenset[str]
    postpone: TermSet
    wished: TermSet
    questions: TermSet
    lead_fillers: TermSet
    auxiliaries: TermSet
    pronouns: TermSet
    blockers: TermSet
    negations: TermSet
    answers: TermSet
    partial: TermSet
    cancel: TermSet
    halt: TermSet
    others: TermSet
    trade: TermSet
    elliptic: TermSet
    conjunctions: TermSet
    time_prepositions: TermSet
    yield_words: TermSet
    labels: TermSet
    dose_joiners: TermSet
    each: TermSet
    product_before: TermSet
    name_prepositions: TermSet
    adjective_endings: tuple[str, ...]
    noun_adjective_endings: tuple[str, ...]
    #: (oblique ending, nominative ending) for a field named by an adjective alone.
    nominative_endings: tuple[tuple[str, str], ...]
    list_joiners: TermSet
    list_nouns: TermSet
    number_markers: TermSet
    numbered_before: TermSet
    number_label_cyrillic: str
    number_label_latin: str
    crop_markers: TermSet
    not_crop_endings: tuple[str, ...]

    @classmethod
    def load(
        cls,
        grammar: Grammar,
        dates: DateWords,
        path: Path = OPERATIONS_RULES,
        products: Path = PRODUCTS_RULES,
    ) -> OperationRules:
        raw = load_toml(path)
        catalogue = Catalogue.load(grammar, products)
        return cls.from_rules(raw, NameRules.from_rules(raw, grammar), dates, grammar, catalogue)

    @classmethod
    def from_rules(
        cls,
        raw: Mapping[str, Any],
        names: NameRules,
        dates: DateWords,
        grammar: Grammar,
        catalogue: Catalogue | None = None,
    ) -> OperationRules:
        ops_raw: Mapping[str, Any] = raw.get("operations", {})
        status: Mapping[str, Any] = raw.get("status", {})
        gates: Mapping[str, Any] = raw.get("gates", {})
        mood: Mapping[str, Any] = raw.get("mood", {})
        fields: Mapping[str, Any] = raw.get("fields", {})

        def flat(section: Mapping[str, Any], key: str, label: str = "x") -> TermSet:
            return TermSet.flat(_strings(section.get(key)), label, grammar)

        def by_key(section: Mapping[str, Any], key: str) -> TermSet:
            return TermSet.labelled(
                {name: _strings(spec.get(key)) for name, spec in section.items()}, grammar
            )

        return cls(
            names=names,
            dates=dates,
            units=Units(raw.get("units", {}), grammar),
            catalogue=catalogue if catalogue is not None else Catalogue.load(grammar),
            ops=by_key(ops_raw, "words"),
            weak_ops=by_key(ops_raw, "weak"),
            crop_object_ops=frozenset(
                op for op, spec in ops_raw.items() if spec.get("crop_object")
            ),
            application_ops=frozenset(
                op for op, spec in ops_raw.items() if spec.get("application")
            ),
            letter_swaps=tuple(
                (str(pair[0]), str(pair[1]))
                for pair in raw.get("settings", {}).get("letter_swaps", [])
            ),
            completive_prefixes=tuple(
                str(prefix) for prefix in raw.get("settings", {}).get("completive_prefixes", [])
            ),
            record=flat(status, "record"),
            plan=flat(status, "plan"),
            future=flat(status, "future"),
            done=flat(status, "done"),
            past_endings=_endings(status.get("past_endings")),
            future_endings=_endings(status.get("future_endings")),
            present_endings=_endings(status.get("present_endings")),
            future_suffixes=_strings(status.get("future_suffixes")),
            product_doses=frozenset(_strings(raw.get("units", {}).get("product_doses"))),
            postpone=flat(mood, "postpone"),
            wished=flat(mood, "wished"),
            questions=flat(gates, "questions"),
            lead_fillers=flat(gates, "lead_fillers"),
            auxiliaries=flat(gates, "auxiliaries"),
            pronouns=flat(gates, "pronouns"),
            blockers=flat(gates, "blockers"),
            negations=flat(mood, "negations"),
            answers=flat(mood, "answers"),
            partial=flat(mood, "partial"),
            cancel=flat(mood, "cancel"),
            halt=flat(mood, "halt"),
            others=flat(mood, "others"),
            trade=flat(mood, "trade"),
            elliptic=flat(mood, "elliptic"),
            conjunctions=flat(raw.get("clauses", {}), "conjunctions"),
            time_prepositions=flat(raw.get("clauses", {}), "time_prepositions"),
            yield_words=flat(raw.get("quantities", {}), "yield_words"),
            labels=flat(raw.get("quantities", {}), "labels"),
            dose_joiners=flat(raw.get("quantities", {}), "dose_joiners"),
            each=flat(raw.get("quantities", {}), "each"),
            product_before=flat(raw.get("quantities", {}), "product_before"),
            name_prepositions=flat(fields, "name_prepositions"),
            adjective_endings=_endings(fields.get("adjective_endings")),
            noun_adjective_endings=_endings(fields.get("noun_adjective_endings")),
            nominative_endings=tuple(
                (str(old), str(new)) for old, new in fields.get("nominative_endings", ())
            ),
            list_joiners=flat(fields, "list_joiners"),
            list_nouns=flat(fields, "list_nouns"),
            number_markers=flat(fields, "number_markers"),
            numbered_before=flat(fields, "numbered_before"),
            number_label_cyrillic=str(fields.get("number_label_cyrillic", "поле")),
            number_label_latin=str(fields.get("number_label_latin", "field")),
            crop_markers=flat(raw.get("crops", {}), "markers"),
            not_crop_endings=_endings(raw.get("crops", {}).get("not_crop_endings")),
        )

    def is_unit_at(self, tokens: Sequence[str], i: int) -> bool:
        """A measure, a hectare or a period word starts at token ``i``: what makes
        "одну" a number ("одну тонну", "a day ago")."""
        if not 0 <= i < len(tokens):
            return False
        token = tokens[i]
        dates = self.dates
        return (
            self.units.measure_at(tokens, i) is not None
            or token in self.units.area
            or token in dates.offset_units
            or token in dates.span_units
        )

    def is_keyword(self, token: str) -> bool:
        """An operation, product, unit, date or status word."""
        return any(
            token in terms
            for terms in (
                self.ops,
                self.weak_ops,
                self.catalogue.terms,
                self.units.measures,
                self.dates.relative,
                self.dates.weekdays,
                self.record,
                self.plan,
                self.done,
            )
        )

    def is_vocabulary(self, token: str) -> bool:
        """A word with a meaning of its own here, so never a name or a brand."""
        dates = self.dates
        return any(
            token in terms
            for terms in (
                self.names.stopwords,
                self.catalogue.terms,
                self.units.measures,
                self.units.area,
                self.units.per,
                dates.relative,
                dates.weekdays,
                dates.months,
                dates.next,
                dates.last,
                dates.coming,
                dates.recent,
                dates.span_units,
                self.questions,
                self.negations,
                self.answers,
                self.cancel,
                self.postpone,
                self.wished,
                self.halt,
                self.others,
                self.trade,
                self.conjunctions,
                self.yield_words,
                self.labels,
                self.blockers,
                self.record,
                self.plan,
                self.future,
                self.done,
                self.ops,
                self.weak_ops,
            )
        ) or any(self.names.is_generic(kind, token) for kind in ("field", "crop"))
