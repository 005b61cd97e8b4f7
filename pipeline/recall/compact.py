"""A finished deep conversation in 3-5 lines (AGENT-PLAN's second memory level).

:func:`extract` writes the lines from what the conversation holds, without an LLM:
when and how many messages, the topics (intents as words), the fields and crops it
named (from the farm's dictionary), the numbers with units, and what was decided
(operations written or planned in it). The farmer's words themselves are never
quoted: a summary outlives the raw text's 7 days. :class:`Compactor` asks the LLM
when one is configured and keeps its answer only when it is 3-5 plain lines.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pipeline.admin.cards import topic_words
from pipeline.crew.completer import TextCompleter
from pipeline.crew.contract import sanitize
from pipeline.farm.dictionary import Dictionary, Kind
from pipeline.farm.localtime import local_time
from pipeline.language.catalog import Catalog
from pipeline.language.texts import Texts
from pipeline.recall.rules import ConversationRules
from pipeline.text import tokenize
from pipeline.types import Language

logger = logging.getLogger(__name__)

#: A number and the short unit after it: «45 га», «0,6 л/га», «20 мм», «15 %».
_NUMBER = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*(%|°C?|[^\W\d_]{1,3}(?:/[^\W\d_]{1,3})?)(?!\w)"
)
SUMMARY_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation (deep interactions only)."""

    at: datetime
    intent: str
    text: str


@dataclass(frozen=True, slots=True)
class Decision:
    """An operation the conversation wrote: its kind and planned | done."""

    op_type: str
    status: str


@dataclass(frozen=True, slots=True)
class Conversation:
    user_id: str
    turns: tuple[Turn, ...]
    decisions: tuple[Decision, ...] = ()

    @property
    def start(self) -> datetime:
        return self.turns[0].at

    @property
    def end(self) -> datetime:
        return self.turns[-1].at

    @property
    def intents(self) -> tuple[str, ...]:
        """Most frequent first."""
        return tuple(name for name, _ in Counter(t.intent for t in self.turns).most_common())


@dataclass(frozen=True, slots=True)
class Compacted:
    text: str
    source: str  # llm | extractive


def names_in(texts: Sequence[str], dictionary: Dictionary, kind: Kind) -> list[str]:
    """Every entry of ``kind`` the texts name (display names, first mention first)."""
    found: list[str] = []
    if not dictionary.has(kind):
        return found
    longest = dictionary.max_words(kind)
    for text in texts:
        words = tokenize(text)
        for start in range(len(words)):
            for size in range(min(longest, len(words) - start), 0, -1):
                entry = dictionary.match_words(kind, words[start : start + size], fuzzy=False)
                if entry is not None:
                    if entry.display not in found:
                        found.append(entry.display)
                    break
    return found


def numbers_in(texts: Sequence[str], limit: int, stopwords: frozenset[str]) -> list[str]:
    found: list[str] = []
    for text in texts:
        for number, unit in _NUMBER.findall(text):
            if unit.casefold() in stopwords:
                continue
            value = f"{number} {unit}"
            if value not in found:
                found.append(value)
    return found[:limit]


def extract(
    talk: Conversation,
    dictionary: Dictionary,
    texts: Texts,
    rules: ConversationRules,
    *,
    timezone: str,
    stopwords: frozenset[str] = frozenset(),
) -> str:
    """The extractive summary: 3 to 5 lines, in ``lang``."""
    said = [turn.text for turn in talk.turns if turn.text]
    start, end = local_time(talk.start, timezone), local_time(talk.end, timezone)
    none = texts.text("recall.summary.none")
    lines = [
        texts.text(
            "recall.summary.when",
            date=f"{start:%d.%m}",
            start=f"{start:%H:%M}",
            end=f"{end:%H:%M}",
            messages=texts.plural("plural.messages", len(talk.turns)),
        ),
        texts.text(
            "recall.summary.topics",
            topics=", ".join(topic_words(talk.intents, texts)) or none,
        ),
    ]
    fields, crops = names_in(said, dictionary, "field"), names_in(said, dictionary, "crop")
    lines.append(
        texts.text(
            "recall.summary.places",
            fields=", ".join(fields) or none,
            crops=", ".join(crops) or none,
        )
    )
    numbers = numbers_in(said, rules.max_numbers, stopwords)
    if numbers:
        lines.append(texts.text("recall.summary.numbers", numbers=", ".join(numbers)))
    if talk.decisions:
        lines.append(_decisions(talk.decisions, texts))
    return "\n".join(_clip(line, rules.max_line_chars) for line in lines[: rules.max_lines])


def _decisions(decisions: Sequence[Decision], texts: Texts) -> str:
    done = [d.op_type for d in decisions if d.status == "done"]
    planned = [d.op_type for d in decisions if d.status != "done"]
    parts = []
    for key, kinds in (("recall.summary.done", done), ("recall.summary.planned", planned)):
        if kinds:
            words = ", ".join(dict.fromkeys(texts.text(f"operation.{k}") for k in kinds))
            parts.append(texts.text(key, kinds=words))
    return texts.text("recall.summary.decisions", decisions="; ".join(parts))


def _clip(line: str, limit: int) -> str:
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def usable(text: str, rules: ConversationRules) -> str | None:
    """An LLM's summary as lines, or None when it is not 3-5 plain lines."""
    lines = [" ".join(line.split()).lstrip("-•* ") for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not 3 <= len(lines) <= rules.max_lines:
        return None
    if any(line.startswith(("{", "[", "#", "```")) for line in lines):
        return None
    return "\n".join(_clip(sanitize(line), rules.max_line_chars) for line in lines)


class Compactor:
    """The LLM's summary when one is configured and answers usably, else the extract."""

    def __init__(
        self,
        catalog: Catalog,
        rules: ConversationRules,
        llm: TextCompleter | None = None,
        prompts: Mapping[Language, str] | None = None,
        *,
        stopwords: frozenset[str] = frozenset(),
    ) -> None:
        self._catalog = catalog
        self._rules = rules
        self._llm = llm
        self._prompts = prompts
        self._stopwords = stopwords

    async def compact(
        self, talk: Conversation, dictionary: Dictionary, lang: Language, timezone: str
    ) -> Compacted:
        facts = extract(
            talk,
            dictionary,
            Texts(self._catalog, lang),
            self._rules,
            timezone=timezone,
            stopwords=self._stopwords,
        )
        if self._llm is None or self._prompts is None:
            return Compacted(facts, "extractive")
        try:
            system = self._prompts[lang].format(facts=facts.replace("\n", "; "))
            user = "\n".join(sanitize(turn.text) for turn in talk.turns if turn.text) or facts
            answer = await self._llm.complete(system, user, timeout_s=SUMMARY_TIMEOUT_S)
        except Exception as exc:
            logger.warning("recall: LLM summary failed (%s), extractive", type(exc).__name__)
            return Compacted(facts, "extractive")
        lines = usable(answer, self._rules)
        if lines is None:
            logger.info("recall: LLM summary unusable, extractive user=%s", talk.user_id)
            return Compacted(facts, "extractive")
        return Compacted(lines, "llm")
