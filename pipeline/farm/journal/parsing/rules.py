"""``pipeline/rules/operations.toml`` compiled into term sets, once (``bot/wiring/factory.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.farm.dictionary import OPERATIONS_RULES, NameRules, OperationsFile
from pipeline.farm.products import PRODUCTS_RULES, Catalogue
from pipeline.farm.words.dates import DateWords
from pipeline.farm.words.units import Units
from pipeline.grammar import Grammar, TermSet
from pipeline.rules.schema import RulesModel
from pipeline.text import fold

__all__ = ["OperationRules"]

#: Word lists of the status and fields tables that are endings or pairs, not terms.
_NOT_TERMS = frozenset(
    {
        "past_endings",
        "future_endings",
        "present_endings",
        "future_suffixes",
        "adjective_endings",
        "noun_adjective_endings",
        "nominative_endings",
    }
)


def _endings(words: tuple[str, ...]) -> tuple[str, ...]:
    """Word endings, folded like the tokens they are compared with."""
    return tuple(fold(item) for item in words)


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
    #: "планували", "план був": an intention a "але" after it says was not carried out.
    intended: TermSet
    #: "але", "но", "but": what turns an intention into work not done.
    contrast: TermSet
    elliptic: TermSet
    conjunctions: TermSet
    time_prepositions: TermSet
    yield_words: TermSet
    labels: TermSet
    dose_joiners: TermSet
    each: TermSet
    product_before: TermSet
    #: ``[quantities] bare_rates``: a unit alone up to so much is a rate per hectare.
    bare_rates: dict[str, dict[str, float]]
    #: "Аканто Плюс", "Децис Профі": a word after a brand that belongs to its name.
    brand_suffixes: TermSet
    name_prepositions: TermSet
    adjective_endings: tuple[str, ...]
    noun_adjective_endings: tuple[str, ...]
    #: (oblique ending, nominative ending) for a field named by an adjective alone.
    nominative_endings: tuple[tuple[str, str], ...]
    list_joiners: TermSet
    list_nouns: TermSet
    number_markers: TermSet
    numbered_before: TermSet
    #: "на четвертому": an ordinal alone after these names the farm's numbered field...
    ordinal_prepositions: TermSet
    #: ...unless it counts one of these ("на другому тижні", "на третьому листку").
    ordinal_not_before: TermSet
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
        raw = OperationsFile.load(path)
        catalogue = Catalogue.load(grammar, products)
        return cls.from_rules(raw, NameRules.from_rules(raw, grammar), dates, grammar, catalogue)

    @classmethod
    def from_rules(
        cls,
        raw: OperationsFile,
        names: NameRules,
        dates: DateWords,
        grammar: Grammar,
        catalogue: Catalogue | None = None,
    ) -> OperationRules:
        ops = raw.operations

        def flat(table: RulesModel, label: str = "x") -> dict[str, TermSet]:
            """Every word list of ``table`` as a term set, by its key."""
            return {
                key: TermSet.flat(words, label, grammar)
                for key, words in table
                if isinstance(words, tuple) and key not in _NOT_TERMS
            }

        def by_key(key: str) -> TermSet:
            return TermSet.labelled(
                {name: getattr(spec, key) for name, spec in ops.items()}, grammar
            )

        quantities, clauses = raw.quantities, raw.clauses
        return cls(
            names=names,
            dates=dates,
            units=Units(raw.units, grammar),
            catalogue=catalogue if catalogue is not None else Catalogue.load(grammar),
            ops=by_key("words"),
            weak_ops=by_key("weak"),
            crop_object_ops=frozenset(op for op, spec in ops.items() if spec.crop_object),
            application_ops=frozenset(op for op, spec in ops.items() if spec.application),
            letter_swaps=raw.settings.letter_swaps,
            completive_prefixes=raw.settings.completive_prefixes,
            past_endings=_endings(raw.status.past_endings),
            future_endings=_endings(raw.status.future_endings),
            present_endings=_endings(raw.status.present_endings),
            future_suffixes=raw.status.future_suffixes,
            product_doses=frozenset(raw.units.get("product_doses", ())),
            yield_words=TermSet.flat(quantities.yield_words, "x", grammar),
            labels=TermSet.flat(quantities.labels, "x", grammar),
            dose_joiners=TermSet.flat(quantities.dose_joiners, "x", grammar),
            each=TermSet.flat(quantities.each, "x", grammar),
            product_before=TermSet.flat(quantities.product_before, "x", grammar),
            bare_rates=quantities.bare_rates,
            brand_suffixes=TermSet.flat(quantities.brand_suffixes, "x", grammar),
            conjunctions=TermSet.flat(clauses.conjunctions, "x", grammar),
            time_prepositions=TermSet.flat(clauses.time_prepositions, "x", grammar),
            adjective_endings=_endings(raw.fields.adjective_endings),
            noun_adjective_endings=_endings(raw.fields.noun_adjective_endings),
            nominative_endings=raw.fields.nominative_endings,
            number_label_cyrillic=raw.fields.number_label_cyrillic,
            number_label_latin=raw.fields.number_label_latin,
            crop_markers=TermSet.flat(raw.crops.markers, "x", grammar),
            not_crop_endings=_endings(raw.crops.not_crop_endings),
            **flat(raw.status),
            **flat(raw.gates),
            **flat(raw.mood),
            **flat(raw.fields),
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
