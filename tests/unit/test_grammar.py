"""The one word-matching grammar (pipeline/grammar): what a term matches, for every
reader alike, and rules passed in rather than loaded behind the caller's back."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from pipeline.classifier import DEFAULT_RULES, Classifier, ClassifierRules
from pipeline.farm.journal.parsing import OperationParser
from pipeline.farm.words.dates import DateWords, find_period
from pipeline.grammar import Grammar, TermSet
from pipeline.text import tokenize
from pipeline.types import ClassifierContext
from tests.shared import rulebook

REPO = Path(__file__).resolve().parents[2]
GRAMMAR = Grammar.load()


def label(terms: list[str], word: str, grammar: Grammar = GRAMMAR) -> str | None:
    (token,) = tokenize(word)
    return TermSet.flat(terms, "hit", grammar).label(token)


# =========================================================================== words


@pytest.mark.parametrize(
    ("term", "word", "hit"),
    [
        ("=полив", "полив", True),
        ("=полив", "поливу", False),  # exact: no stem
        ("=полив", "пoлив", True),  # a Latin "o" inside Cyrillic is repaired first
        ("запиши", "записав", True),  # same stem
        ("вологість", "вологості", True),
        ("полив", "поле", False),  # stems shorter than stem_min_len never count
        ("полив*", "поливали", True),  # prefix
        ("порівня*", "порівнняй", True),  # one typo inside a long prefix
        ("завтрак*", "завтра", False),  # ... never at its last letter
        ("привіт", "прівіт", True),  # one typo from fuzzy_min_len letters
        ("тля", "тло", False),  # short words: exactly (no stem, no typo) ...
        ("тля", "тлі", True),  # ... but every form the dictionary lists
        ("thanks", "thinks", False),  # Latin words need fuzzy_min_len_latin letters
        ("wheat", "weat", False),
    ],
)
def test_single_words(term: str, word: str, hit: bool) -> None:
    assert (label([term], word) == "hit") is hit


def test_the_thresholds_are_data() -> None:
    assert label(["привіт"], "прівіт") == "hit"
    strict = replace(GRAMMAR, fuzzy_min_len=99, fuzzy_min_stem_len=99)
    assert label(["привіт"], "прівіт", strict) is None
    stemless = replace(GRAMMAR, stem_min_len=9, morphology=None)
    assert label(["запиши"], "записав", stemless) is None


def test_the_best_term_gives_the_label() -> None:
    """Exact, then the same stem, then the longest prefix, then a typo; on a tie the
    term listed first."""
    terms = TermSet(
        [("посів*", "prefix"), ("посіви", "stem"), ("=посіви", "exact"), ("пос*", "short")],
        GRAMMAR,
    )
    assert terms.label("посіви") == "stem"  # "посіви" plain is listed before "=посіви"
    assert terms.label("посівами") == "stem"
    assert terms.label("посівна") == "prefix"  # the longest prefix
    assert terms.label("посол") == "short"
    first = TermSet([("дощ*", "a"), ("дощ*", "b")], GRAMMAR)
    assert first.label("дощу") == "a"


def test_a_typo_only_when_nothing_matches_exactly() -> None:
    terms = TermSet([("полив", "irrigation"), ("=полів", "fields")], GRAMMAR)
    assert terms.label("полів") == "fields"
    assert terms.label("поливу") == "irrigation"


# =========================================================================== phrases


def match(terms: list[str], text: str) -> tuple[str, int] | None:
    return TermSet.flat(terms, "hit", GRAMMAR).match_at(tokenize(text), 0)


def test_phrases_alternatives_numbers_and_gaps() -> None:
    assert match(["л/га"], "л га") == ("hit", 2)  # "l/ha" as one term is a phrase
    assert match(["=good morning|evening"], "good evening") == ("hit", 2)
    assert match(["good morning|evening"], "good mornings") == ("hit", 2)
    assert match(["good =morning|evening"], "good mornings") is None  # "=" makes all exact
    assert match(["поле #"], "поле 3") == ("hit", 2)
    assert match(["як * справи"], "як твої справи") == ("hit", 3)
    assert match(["дяк* ~ за"], "дякую тобі дуже за") == ("hit", 4)
    assert match(["дяк* ~ за"], "дякую тобі дуже сильно за") is None  # phrase_gap is 2


def test_the_longest_phrase_wins_over_a_word() -> None:
    terms = TermSet([("вологість", "soil"), ("вологість повітря", "air")], GRAMMAR)
    assert terms.match_at(tokenize("вологості повітря"), 0) == ("air", 2)
    assert terms.match_at(tokenize("вологості ґрунту"), 0) == ("soil", 1)


# =========================================================================== rules passed in


def test_every_reader_takes_the_grammar_it_is_given() -> None:
    """A classifier and a parser with other thresholds, built without monkeypatching."""
    rules = rulebook()
    typo = "привит"  # "привіт*" with one typo inside
    normal = rules.classifier
    strict_grammar = replace(rules.grammar, fuzzy_min_prefix_len=99)
    strict = Classifier(rules.classifier.rules, strict_grammar)
    assert normal.classify(typo, ClassifierContext()).intent == "greeting"
    assert strict.classify(typo, ClassifierContext()).intent != "greeting"
    raw = tomllib.loads((REPO / "pipeline/rules/dates.toml").read_text("utf-8"))
    raw["days"]["relative"] = [row for row in raw["days"]["relative"] if row["days"] != -1]
    other = replace(rules.operations, dates=DateWords.from_mapping(raw, rules.grammar))
    today = date(2026, 5, 14)
    farm = rules.vocabulary.dictionary()
    said = "вчора полили поле 3 20 мм"
    parsed = OperationParser(rules.operations).parse(said, farm, today)
    assert parsed is not None and parsed.op_date == date(2026, 5, 13)
    parsed = OperationParser(other).parse(said, farm, today)
    assert parsed is not None and parsed.op_date == today


def test_the_classifier_rules_are_read_once_and_reused() -> None:
    rules = ClassifierRules.load(DEFAULT_RULES)
    first, second = Classifier(rules, GRAMMAR), Classifier(rules, GRAMMAR)
    ctx = ClassifierContext()
    assert first.classify("привіт", ctx) == second.classify("привіт", ctx)


def test_the_parser_and_the_period_reader_share_one_date_vocabulary() -> None:
    rules = rulebook()
    assert rules.operations.dates is rules.dates
    today = date(2026, 5, 14)
    period = find_period("звіт за травень", today, rules.dates)
    assert period is not None and (period.start, period.end) == (
        date(2026, 5, 1),
        date(2026, 5, 31),
    )
    parsed = OperationParser(rules.operations).parse(
        "полили поле 3 20 мм 12 травня", rules.vocabulary.dictionary(), today
    )
    assert parsed is not None and parsed.op_date == date(2026, 5, 12)


# =========================================================================== no hidden caches

WORD_MODULES = [
    "pipeline/grammar",
    "pipeline/classifier",
    "pipeline/farm/journal/parsing",
    "pipeline/farm/dictionary.py",
    "pipeline/farm/words/dates.py",
    "pipeline/farm/words/units.py",
    "pipeline/crew/words.py",
    "pipeline/onboarding/flow.py",
]


def test_no_module_level_rule_caches_in_the_word_modules() -> None:
    cached = re.compile(r"^@(functools\.)?(cache|lru_cache)\b", re.MULTILINE)
    for entry in WORD_MODULES:
        path = REPO / entry
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            assert not cached.search(source.read_text("utf-8")), source
