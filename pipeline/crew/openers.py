"""When a deep reply opens with the farmer's name (issue 16 point 4).

An opener («Ось що маю, Олено:») helps a reply of several lines; before a single
sentence («Показів датчиків поки немає.») it is filler, and on two replies in a row
it grates. The pool of openers is data (``compose.opener.<style>`` in the catalogs);
when one may be used is data too (``[opener]`` in ``rules/compose.toml``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pipeline.profiles import RecentTopic


@dataclass(frozen=True, slots=True)
class OpenerRule:
    #: Non-empty lines the reply's body must have for an opener.
    min_lines: int = 3
    #: A deep reply within this time before counts as "the previous reply".
    conversation: timedelta = timedelta(minutes=30)
    #: The intents answered in a line or two: the classifier's light intents
    #: (rules/classifier.toml); a reply to any other was composed at length.
    light: frozenset[str] = frozenset()

    @classmethod
    def from_rules(cls, raw: Mapping[str, Any], light: frozenset[str]) -> OpenerRule:
        rule = cls(
            min_lines=int(raw["min_lines"]),
            conversation=timedelta(minutes=float(raw["conversation_minutes"])),
            light=light,
        )
        if rule.min_lines < 2:
            raise ValueError("compose.toml: [opener] min_lines must be at least 2")
        return rule

    def allows(self, body: str, recent: Sequence[RecentTopic], now: datetime) -> bool:
        """Several lines, and the previous message was not answered at length as well
        (a deep reply, which may have had its opener)."""
        lines = [line for line in body.splitlines() if line.strip()]
        if len(lines) < self.min_lines:
            return False
        if not recent:
            return True
        last = recent[-1]
        return last.intent in self.light or now - last.ts > self.conversation
