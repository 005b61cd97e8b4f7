"""What a question is about, as words: the subject signature of the repeat shortcut
and the status-question test (rules in ``pipeline/rules/recall.toml``).

A subject is the set of the message's content-word stems and numbers, so «яка
вологість на полі 2» and «а вологість на полі 2?» are one subject, while «… полі 3»
is another. Two questions are the same when their intents and subjects are equal.
"""

from __future__ import annotations

import re

from pipeline.recall.rules import StatusRules, SubjectRules

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


def words(text: str) -> list[str]:
    return [token.replace("’", "'") for token in _TOKEN.findall(text.casefold())]


def stem(word: str, length: int) -> str:
    if word.isdigit():
        return word
    if len(word) > length:
        return word[:length]
    return word[:-1] if len(word) > 3 else word


def subject_of(text: str, rules: SubjectRules) -> str:
    """The sorted stems of the content words, joined by spaces ("" for none)."""
    stems = {stem(word, rules.stem_length) for word in words(text) if word not in rules.stopwords}
    return " ".join(sorted(stems))


def is_status_question(text: str, rules: StatusRules) -> bool:
    """«який статус», «що зараз», «what's new»: short, with a status cue. The caller
    checks that the classifier found no farming intent in it."""
    tokens = words(text)
    if not tokens or len(tokens) > rules.max_words:
        return False
    if any(token.startswith(cue) for token in tokens for cue in rules.cue_words):
        return True
    present = set(tokens)
    return any(first in present and second in present for first, second in rules.cue_pairs)
