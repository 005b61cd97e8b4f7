"""The recall rules (``pipeline/rules/recall.toml``): shortcuts and conversation memory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.intents import Intent
from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesModel, load, parse

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
        return load(path, _RecallFile, source=_source(path)).runtime()

    @classmethod
    def from_mapping(cls, raw: dict[str, Any]) -> RecallRules:
        """Checked as it loads: a ValueError names what is wrong."""
        return parse(raw, _RecallFile, source=_source(RECALL_RULES)).runtime()


def _source(path: Path) -> str:
    return f"{path.name} (recall rules)"


class _Repeat(RulesModel):
    window_seconds: int
    intents: tuple[Intent, ...]


class _Status(RulesModel):
    max_age_seconds: int
    max_words: int
    cue_words: tuple[str, ...]
    cue_pairs: tuple[tuple[str, str], ...]
    crew: tuple[str, ...]


class _Subject(RulesModel):
    stopwords: tuple[str, ...]
    stem_length: int


class _Conversation(RulesModel):
    silence_minutes: int
    window: int = Field(ge=1)
    max_lines: int = Field(ge=3, le=5)
    max_line_chars: int
    in_prompt: int
    notes_max: int
    note_chars: int
    max_numbers: int
    lookback_hours: int
    ignore_intents: tuple[Intent, ...]
    subject_groups: tuple[tuple[Intent, ...], ...]

    def runtime(self) -> ConversationRules:
        return ConversationRules(
            silence=timedelta(minutes=self.silence_minutes),
            window=self.window,
            max_lines=self.max_lines,
            max_line_chars=self.max_line_chars,
            in_prompt=self.in_prompt,
            notes_max=self.notes_max,
            note_chars=self.note_chars,
            max_numbers=self.max_numbers,
            lookback=timedelta(hours=self.lookback_hours),
            groups={
                intent.value: number
                for number, group in enumerate(self.subject_groups)
                for intent in group
            },
            ignore=frozenset(intent.value for intent in self.ignore_intents),
        )


class _RecallFile(RulesModel):
    repeat: _Repeat
    status: _Status
    subject: _Subject
    conversation: _Conversation

    def runtime(self) -> RecallRules:
        status = self.status
        return RecallRules(
            repeat=RepeatRules(
                window=timedelta(seconds=self.repeat.window_seconds),
                intents=frozenset(self.repeat.intents),
            ),
            status=StatusRules(
                max_age=timedelta(seconds=status.max_age_seconds),
                max_words=status.max_words,
                cue_words=tuple(word.lower() for word in status.cue_words),
                cue_pairs=tuple((a.lower(), b.lower()) for a, b in status.cue_pairs),
                crew=status.crew,
            ),
            subject=SubjectRules(
                stopwords=frozenset(word.lower() for word in self.subject.stopwords),
                stem_length=self.subject.stem_length,
            ),
            conversation=self.conversation.runtime(),
        )
