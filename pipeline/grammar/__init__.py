"""The one word-matching grammar: how a term in a rules file matches a farmer's words.

Every rules file writes its words in this syntax (``classifier.toml``,
``operations.toml``, ``dates.toml``, ``compose.toml``, ``advice.toml``), and every
reader matches them through this module: the depth classifier, the operation parser,
the farm dictionary, the date reader and the deep path's argument reader. The
thresholds live once, in ``pipeline/rules/grammar.toml``.

Both the term and the message are folded and tokenised by :mod:`pipeline.text` first
(lowercase, apostrophes dropped, ``є→е``, ``ї→і``, ``ь`` removed ...), so a term is
written in its ordinary spelling.

``word``
    This word; from ``stem_min_len`` letters of stem also every inflection with the
    same stem (``запиши`` finds ``записав``), and one typo (an insertion, deletion,
    substitution or swap of neighbours) in words of ``fuzzy_min_len`` letters or more
    (``fuzzy_min_len_latin`` for Latin words, where short look-alikes abound:
    think/thank). A stem of ``fuzzy_min_stem_len`` letters also tolerates a typo.
``=word``
    Exactly this word: no stem, no typo. Short words ("на", "га") want it.
``pref*``
    Any word starting with ``pref``; from ``fuzzy_min_prefix_len`` letters one typo
    strictly inside the prefix (its first and last letters stay put).
``a b c``
    A phrase: consecutive words, each slot in the same syntax. A slot may list
    alternatives ``a|b`` (``=a|b`` makes them all exact), or be ``#`` (a number),
    ``*`` (any word) or ``@lexicon``; ``~`` lets up to ``phrase_gap`` other words
    sit between two slots. ``l/ha`` written as one term is the phrase ``l ha``.
``@lexicon``
    Every term of a named word list (where the rules file has lexicons).
an emoji
    That emoji (where the reader looks at emoji).

A typo is only looked for when no term matches the word exactly, by stem or by
prefix. Which of several matching terms counts is the reader's choice: the
classifier scores all of them; a :class:`TermSet` answers with the label of the
best one (exact, then same stem, then the longest prefix, then a typo; the term
listed first on a tie).
"""

from pipeline.grammar.index import WordIndex, WordIndexBuilder
from pipeline.grammar.phrases import Slot, is_phrase, match_phrase_at, parse_phrase
from pipeline.grammar.settings import DEFAULT_GRAMMAR, Grammar
from pipeline.grammar.terms import TermSet

__all__ = [
    "DEFAULT_GRAMMAR",
    "Grammar",
    "Slot",
    "TermSet",
    "WordIndex",
    "WordIndexBuilder",
    "is_phrase",
    "match_phrase_at",
    "parse_phrase",
]
