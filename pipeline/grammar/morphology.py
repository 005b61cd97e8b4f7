"""Dictionary morphology for the term grammar: every form of a term's word.

A plain word in a rules file (``сіяти``, ``селітра``, ``четвертий``) matches every
form of its lexeme that a maintained dictionary lists: pymorphy3 with its Ukrainian
and Russian dictionaries (OpenCorpora for Russian, the VESUM-based one for
Ukrainian). ``селітра`` then finds ``селітри`` and ``селітрою``, ``азот`` the
Russian ``азота``, ``четвертий`` the ``четвертому`` a farmer dictates. The forms are
generated once, when a rules file is indexed, and looked up as folded words
(:func:`pipeline.text.fold`), so a message costs no analysis at all.

Only content words get forms (nouns, adjectives, numerals, verbs and their
participles): a pronoun's lexeme (``що`` -> ``чому``) would turn one word into
another. A word the dictionary does not know (surzhyk, a typo, a brand) gets none;
the stem and one-typo rules of :mod:`pipeline.grammar` still cover it.

The dictionaries themselves are loaded once per process (pipeline/language/
dictionaries.py); the forms of each word are generated once per grammar.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.language.dictionaries import DICTIONARY_LANGUAGES, DictionaryLanguage, analyzer
from pipeline.text import APOSTROPHES, fold, tokenize

__all__ = ["Morphology"]

#: Parts of speech whose lexeme is one word in many forms (OpenCorpora tags, which
#: both dictionaries use). Pronouns, prepositions, conjunctions and particles are not.
_CONTENT = frozenset(
    {"NOUN", "ADJF", "ADJS", "COMP", "VERB", "INFN", "PRTF", "PRTS", "GRND", "NUMR"}
)

#: Shorter words are left to exact matching (``га``, ``до``).
_MIN_LETTERS = 3

#: The dictionaries spell the apostrophe as ASCII ``'``.
_APOSTROPHE = str.maketrans({ch: "'" for ch in APOSTROPHES})


def _lexeme(lang: DictionaryLanguage, word: str) -> frozenset[str]:
    """The folded forms of ``word``'s lexeme in one dictionary (empty if unknown)."""
    known = [p for p in analyzer(lang).parse(word) if p.is_known]
    if not known or known[0].tag.POS not in _CONTENT:
        return frozenset()
    lemma = known[0].normal_form
    forms: set[str] = set()
    for parse in known:
        if parse.normal_form != lemma or parse.tag.POS not in _CONTENT:
            continue
        for form in parse.lexeme:
            tokens = tokenize(fold(form.word))
            if len(tokens) == 1:
                forms.add(tokens[0])
    return frozenset(forms)


class Morphology:
    """The forms of a word in the dictionaries of ``languages``."""

    def __init__(self, languages: Sequence[DictionaryLanguage] = DICTIONARY_LANGUAGES) -> None:
        self.languages = tuple(languages)
        #: Forms per word already generated (a word recurs across rules files).
        self._seen: dict[str, frozenset[str]] = {}
        for lang in self.languages:
            analyzer(lang)  # a missing dictionary fails at start-up, not mid-message

    def forms(self, word: str) -> frozenset[str]:
        """Every folded form of ``word`` (as written in a rules file, not folded) in
        each dictionary that knows it; empty for a word none of them knows."""
        surface = word.strip().lower().translate(_APOSTROPHE)
        if len(surface) < _MIN_LETTERS or not surface.replace("'", "").isalpha():
            return frozenset()
        if surface.isascii():
            return frozenset()
        found = self._seen.get(surface)
        if found is None:
            found = frozenset().union(*(_lexeme(lang, surface) for lang in self.languages))
            self._seen[surface] = found
        return found

    def __repr__(self) -> str:
        return f"Morphology({', '.join(self.languages)})"
