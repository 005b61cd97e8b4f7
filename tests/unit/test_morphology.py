"""Dictionary morphology in the one grammar (pipeline/grammar/morphology.py): a plain
term matches every form of its word that the Ukrainian and Russian dictionaries
list, where the suffix stripper cannot reach, and nothing a dictionary does not
vouch for."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.grammar import Grammar, TermSet
from pipeline.grammar.morphology import Morphology
from pipeline.rules.schema import RulesError
from pipeline.text import tokenize

SHIPPED = Grammar.load()
STEMS_ONLY = Grammar()


def label(term: str, word: str, grammar: Grammar) -> str | None:
    (token,) = tokenize(word)
    return TermSet.flat([term], "hit", grammar).label(token)


def test_the_shipped_grammar_reads_both_dictionaries() -> None:
    assert SHIPPED.morphology is not None
    assert SHIPPED.morphology.languages == ("uk", "ru")


@pytest.mark.parametrize(
    ("term", "word"),
    [
        ("садити", "садять"),  # Ukrainian, a stem change the stripper cannot undo
        ("сіяти", "сію"),
        ("внести", "вніс"),
        ("брати", "беру"),
        ("сеять", "сеют"),  # Russian
        ("пахать", "пашут"),
    ],
)
def test_a_lemma_finds_forms_stems_miss(term: str, word: str) -> None:
    assert label(term, word, SHIPPED) == "hit"
    # Without the dictionaries the same term misses it: the forms are what matched.
    assert label(term, word, STEMS_ONLY) is None


def test_a_pronoun_lexeme_does_not_turn_one_word_into_another() -> None:
    # «що» and «чому» are forms of one pronoun; a rules file naming «що» means «що».
    assert label("що", "чому", SHIPPED) is None


def test_an_exact_term_gets_no_forms() -> None:
    assert label("=садити", "садять", SHIPPED) is None


def test_words_no_dictionary_knows_keep_the_stem_and_typo_rules() -> None:
    assert Morphology().forms("гербіцидити") == frozenset()
    assert Morphology().forms("roundup") == frozenset()
    # A typo is still one typo away from the term, dictionary or not.
    assert label("селітра", "салітра", SHIPPED) == "hit"


def test_forms_are_folded_like_every_message_word() -> None:
    forms = Morphology(["uk"]).forms("м'ята")
    # No apostrophe, є/ї folded, ь dropped: the message's token meets them as is.
    assert "мяти" in forms
    assert all("'" not in form and "ь" not in form for form in forms)


def test_a_form_of_another_term_does_not_outrank_the_exact_word() -> None:
    terms = TermSet.labelled({"sowing": ["сіяти"], "seed": ["сію"]}, SHIPPED)
    (token,) = tokenize("сію")
    assert terms.label(token) == "seed"


def test_an_unknown_dictionary_is_one_line_naming_the_key(tmp_path: Path) -> None:
    broken = tmp_path / "grammar.toml"
    text = Path(Grammar.load.__defaults__[0]).read_text(encoding="utf-8")  # type: ignore[index]
    broken.write_text(text.replace('morphology = ["uk", "ru"]', 'morphology = ["pl"]'))
    with pytest.raises(RulesError) as error:
        Grammar.load(broken)
    message = str(error.value)
    assert "grammar.toml" in message and "morphology" in message
    assert "\n" not in message
