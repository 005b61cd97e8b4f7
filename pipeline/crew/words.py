"""Reading tool arguments from a message without an LLM: which sensor, which field,
a chart or not, which advice topic. The words are data (``rules/compose.toml``,
``rules/advice.toml``) in the term syntax of :mod:`pipeline.grammar`, so inflections
and typos need no listing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.crew.openers import OpenerRule
from pipeline.crew.words_file import AdviceFile, ComposeFile, JournalViewTable, SeasonTable
from pipeline.farm.dictionary import Dictionary, DictionaryEntry
from pipeline.farm.season_calendar import SeasonCalendar
from pipeline.farm.words.periods import DefaultKind
from pipeline.grammar import Grammar, TermSet
from pipeline.profiles import Phase
from pipeline.rules import RULES_DIR, schema
from pipeline.text import tokenize

RULES = RULES_DIR
COMPOSE_FILE = RULES / "compose.toml"
ADVICE_FILE = RULES / "advice.toml"


class PhraseMatcher:
    """Labelled terms; at each word the longest phrase that starts there wins."""

    def __init__(self, phrases: Mapping[str, Iterable[str]], grammar: Grammar) -> None:
        self._terms = TermSet.labelled(
            {label: [str(phrase) for phrase in items] for label, items in phrases.items()},
            grammar,
        )

    def find_all(self, text: str) -> list[str]:
        """Labels in order of first appearance, each once; words are used once."""
        words = tokenize(text)
        ordered: list[str] = []
        i = 0
        while i < len(words):
            hit = self._terms.match_at(words, i)
            if hit is None:
                i += 1
                continue
            label, length = hit
            if label not in ordered:
                ordered.append(label)
            i += length
        return ordered

    def first(self, text: str) -> str | None:
        found = self.find_all(text)
        return found[0] if found else None


@dataclass(frozen=True, slots=True)
class AdviceTopic:
    name: str
    sensor: str | None


@dataclass(frozen=True, slots=True)
class JournalView:
    """When a summary lists the journal's entries instead of the season's totals
    (``[journal_view]`` in compose.toml)."""

    asks: PhraseMatcher
    totals: PhraseMatcher
    lines: int
    default_period: DefaultKind

    def wanted(self, text: str) -> bool:
        return self.asks.first(text) is not None and self.totals.first(text) is None

    @classmethod
    def from_rules(cls, table: JournalViewTable, grammar: Grammar) -> JournalView:
        return cls(
            asks=PhraseMatcher({"journal": table.phrases}, grammar),
            totals=PhraseMatcher({"totals": table.totals}, grammar),
            lines=table.lines,
            default_period=table.default_period,
        )


@dataclass(frozen=True, slots=True)
class Words:
    chart: PhraseMatcher
    sensors: PhraseMatcher
    advice: PhraseMatcher
    advice_topics: Mapping[str, AdviceTopic]
    #: The season's phase by the calendar and the farm's crops ([season]).
    season: SeasonCalendar
    planning_days: int
    #: When a deep reply opens with the farmer's name ([opener]).
    opener: OpenerRule
    #: When a summary is the journal's entries ([journal_view]).
    journal: JournalView

    def wants_chart(self, text: str) -> bool:
        return self.chart.first(text) is not None

    def sensor_type(self, text: str) -> str | None:
        return self.sensors.first(text)

    def advice_topic(self, text: str) -> AdviceTopic | None:
        found = self.advice.find_all(text)
        if not found:
            return None
        # The data file's order is the priority: a pest beats "полив" in one question.
        ranked = sorted(found, key=list(self.advice_topics).index)
        return self.advice_topics[ranked[0]]

    def phase_for_month(self, month: int, hemisphere: str = "north") -> Phase:
        return self.season.for_month(month, hemisphere)

    @classmethod
    def load(
        cls,
        grammar: Grammar,
        compose: Path = COMPOSE_FILE,
        advice: Path = ADVICE_FILE,
        *,
        light: frozenset[str],
    ) -> Words:
        """Read both files (each call reads them again: ``bot/wiring/factory.py`` loads once).
        ``light``: the classifier's light intents (the opener rule needs them)."""
        rules = schema.load(compose, ComposeFile)
        topics_file = schema.load(advice, AdviceFile).topics
        topics = {name: AdviceTopic(name, spec.sensor) for name, spec in topics_file.items()}
        return cls(
            chart=PhraseMatcher({"chart": rules.chart.phrases}, grammar),
            sensors=PhraseMatcher(rules.sensors, grammar),
            advice=PhraseMatcher({name: spec.terms for name, spec in topics_file.items()}, grammar),
            advice_topics=topics,
            season=_calendar(rules.season),
            planning_days=rules.planning.days_ahead,
            opener=OpenerRule.from_rules(rules.opener.model_dump(), light),
            journal=JournalView.from_rules(rules.journal_view, grammar),
        )


def field_in_text(text: str, dictionary: Dictionary) -> DictionaryEntry | None:
    """The farm field the message names ("на полі 2", "Північне"), longest match first."""
    words = tokenize(text)
    if not dictionary.has("field"):
        return None
    longest = dictionary.max_words("field")
    for size in range(min(longest, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            entry = dictionary.match_words("field", words[start : start + size], fuzzy=False)
            if entry is not None:
                return entry
    return None


def field_by_name(name: str, dictionary: Dictionary) -> DictionaryEntry | None:
    """A field the LLM named: an exact field id of this farm, or a name it knows."""
    cleaned = name.strip()
    if not cleaned:
        return None
    exact = dictionary.get(cleaned)
    if exact is not None:
        return exact if exact.kind == "field" else None
    return dictionary.resolve("field", cleaned) or field_in_text(cleaned, dictionary)


def _calendar(table: SeasonTable) -> SeasonCalendar:
    return SeasonCalendar(
        by_month=dict(sorted(table.north.items())),
        allowed={month: frozenset(phases) for month, phases in table.allowed.items()},
        winter_crops=frozenset(table.winter_crops.crops),
        winter_phases={
            month: frozenset(phases) for month, phases in table.winter_crops.months.items()
        },
    )
