"""The recall rules (``pipeline/rules/recall.toml``): shortcuts and conversation memory."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from pipeline.intents import Intent
from pipeline.rules import RULES_DIR

RECALL_RULES = RULES_DIR / "recall.toml"


@dataclass(frozen=True, slots=True)
class RepeatRules:
    window: timedelta
    intents: frozenset[Intent]


@dataclass(frozen=True, slots=True)
class StatusRules:
    max_age: timedelta
    max_words: int
    cue_words: tuple[str, ...]
    cue_pairs: tuple[tuple[str, str], ...]
    crew: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SubjectRules:
    stopwords: frozenset[str]
    stem_length: int


@dataclass(frozen=True, slots=True)
class ConversationRules:
    silence: timedelta
    window: int
    max_lines: int
    max_line_chars: int
    in_prompt: int
    notes_max: int
    note_chars: int
    max_numbers: int
    #: Only messages this recent are compacted (a first run on an old log skips history).
    lookback: timedelta
    #: intent -> its subject group: moving within a group is not a change of subject.
    groups: dict[str, int]
    #: Social intents: they neither make a conversation nor end one.
    ignore: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RecallRules:
    repeat: RepeatRules
    status: StatusRules
    subject: SubjectRules
    conversation: ConversationRules

    @classmethod
    def load(cls, path: Path = RECALL_RULES) -> RecallRules:
        with path.open("rb") as handle:
            return cls.from_mapping(tomllib.load(handle))

    @classmethod
    def from_mapping(cls, raw: dict[str, Any]) -> RecallRules:
        """Checked as it loads: a ValueError names what is wrong."""
        try:
            repeat, status, subject, talk = (
                raw["repeat"],
                raw["status"],
                raw["subject"],
                raw["conversation"],
            )
            pairs = tuple((str(a).lower(), str(b).lower()) for a, b in status["cue_pairs"])
            rules = cls(
                repeat=RepeatRules(
                    window=timedelta(seconds=int(repeat["window_seconds"])),
                    intents=frozenset(Intent(name) for name in repeat["intents"]),
                ),
                status=StatusRules(
                    max_age=timedelta(seconds=int(status["max_age_seconds"])),
                    max_words=int(status["max_words"]),
                    cue_words=tuple(str(word).lower() for word in status["cue_words"]),
                    cue_pairs=pairs,
                    crew=tuple(str(name) for name in status["crew"]),
                ),
                subject=SubjectRules(
                    stopwords=frozenset(str(word).lower() for word in subject["stopwords"]),
                    stem_length=int(subject["stem_length"]),
                ),
                conversation=ConversationRules(
                    silence=timedelta(minutes=int(talk["silence_minutes"])),
                    window=int(talk["window"]),
                    max_lines=int(talk["max_lines"]),
                    max_line_chars=int(talk["max_line_chars"]),
                    in_prompt=int(talk["in_prompt"]),
                    notes_max=int(talk["notes_max"]),
                    note_chars=int(talk["note_chars"]),
                    max_numbers=int(talk["max_numbers"]),
                    lookback=timedelta(hours=int(talk["lookback_hours"])),
                    groups={
                        Intent(name).value: number
                        for number, group in enumerate(talk["subject_groups"])
                        for name in group
                    },
                    ignore=frozenset(Intent(name).value for name in talk["ignore_intents"]),
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"recall rules: {exc!r}") from None
        if rules.conversation.window < 1 or not 3 <= rules.conversation.max_lines <= 5:
            raise ValueError("recall rules: window >= 1 and 3 <= max_lines <= 5")
        return rules
