"""The question mark the rules cannot see: "recorded this week?" asks what the journal
holds, while "recorded irrigation 20 mm" records (in any language of the lexicons).

The tokeniser drops punctuation, so a question without a question word looks like a
record to the rules. This probe (``probe = "lookback"`` of the summary intent in
``rules/classifier.toml``) reads the raw text: a sentence ending in "?" with a record
verb in the past or a passive (lexicon ``record_past``) and no record command anywhere
(lexicon ``record_command``) is a look-back, scored as a trigger, and the summary's
``outranks`` un-match recording.
"""

from __future__ import annotations

import re

from pipeline.classifier.rules import ClassifierRules
from pipeline.grammar import Grammar, TermSet
from pipeline.text import tokenize

__all__ = ["LookBack"]

#: A sentence that ends in a question mark (the asking part of the message).
_QUESTION = re.compile(r"[^.!?\n]*\?")


class LookBack:
    def __init__(self, record_past: TermSet, commands: TermSet, weight: int) -> None:
        self._past = record_past
        self._commands = commands
        self._weight = weight

    @classmethod
    def from_rules(cls, rules: ClassifierRules, grammar: Grammar) -> LookBack:
        """The words are the classifier's own lexicons (one list for both readers)."""
        lexicons = rules.lexicons
        for name in ("record_past", "record_command", "past_ops"):
            if name not in lexicons:
                raise ValueError(f"classifier.toml: the look-back probe needs lexicon {name!r}")
        # "entered" in Ukrainian also tells work done (a fertiliser applied): only the
        # verbs that say nothing but "written down" count.
        operations = set(lexicons["past_ops"])
        past = [term for term in lexicons["record_past"] if term not in operations]
        return cls(
            TermSet.labelled({"past": past}, grammar),
            TermSet.labelled({"command": lexicons["record_command"]}, grammar),
            rules.settings.trigger_weight,
        )

    def claim(self, text: str) -> int:
        if "?" not in text:
            return 0
        if self._has(self._commands, tokenize(text)):
            return 0
        for question in _QUESTION.findall(text):
            if self._has(self._past, tokenize(question)):
                return self._weight
        return 0

    @staticmethod
    def _has(terms: TermSet, words: tuple[str, ...]) -> bool:
        return any(terms.match_at(words, i) is not None for i in range(len(words)))
