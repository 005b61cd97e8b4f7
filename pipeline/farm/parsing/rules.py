"""``pipeline/rules/operations.toml`` compiled into term sets, once (``bot/factory.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.farm.dates import DateWords
from pipeline.farm.dictionary import OPERATIONS_RULES, NameRules, load_toml
from pipeline.farm.units import Units
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
    """Every word the parser knows: ``operations.toml`` plus the date words."""

    names: NameRules
    dates: DateWords
    units: Units
    ops: TermSet
    weak_ops: TermSet
    crop_object_ops: frozenset[str]
    products: TermSet
    product_implies: Mapping[str, str]
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
    def load(
        cls, grammar: Grammar, dates: DateWords, path: Path = OPERATIONS_RULES
    ) -> OperationRules:
        raw = load_toml(path)
        return cls.from_rules(raw, NameRules.from_rules(raw, grammar), dates, grammar)

    @classmethod
    def from_rules(
        cls, raw: Mapping[str, Any], names: NameRules, dates: DateWords, grammar: Grammar
    ) -> OperationRules:
        ops_raw: Mapping[str, Any] = raw.get("operations", {})
        products_raw: Mapping[str, Any] = raw.get("products", {})
        status: Mapping[str, Any] = raw.get("status", {})
        gates: Mapping[str, Any] = raw.get("gates", {})
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
            ops=by_key(ops_raw, "words"),
            weak_ops=by_key(ops_raw, "weak"),
            crop_object_ops=frozenset(
                op for op, spec in ops_raw.items() if spec.get("crop_object")
            ),
            products=by_key(products_raw, "words"),
            product_implies={
                cat: str(spec["implies"])
                for cat, spec in products_raw.items()
                if spec.get("implies")
            },
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
        return any(
            token in terms
            for terms in (
                self.names.stopwords,
                self.products,
                self.units.measures,
                self.units.area,
                self.dates.relative,
                self.dates.weekdays,
                self.dates.months,
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
