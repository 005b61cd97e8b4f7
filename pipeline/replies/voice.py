"""Who Stepan talks to changes what he writes, without an LLM (issue 11 point 3).

The *voice* of a reply is the user's expertise level (``novice``, ``intermediate``,
``expert``), or ``operator`` for an operator. It works on the message catalogs:

* ``level.<voice>.<key>`` overrides ``<key>`` where it exists (``level.expert.
  compose.no_iot`` is the terse «IoT не підключено»); an operator's voice falls back
  to the expert's. An empty override drops the line (no opener for an expert).
* a novice gets ``level.novice.why.<name>`` after a part: what its terms mean and why
  it matters (``why.latest_readings``: what soil moisture and the threshold are).
* an operator gets a technical footer: the trace code, intent, mode, crew and reason.

Intermediate is the catalogs as they are: the reference voice.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.language.texts import Texts
from pipeline.types import DepthDecision, Incoming

NOVICE, INTERMEDIATE, EXPERT, OPERATOR = "novice", "intermediate", "expert", "operator"
VOICES = (NOVICE, INTERMEDIATE, EXPERT, OPERATOR)
#: Where a voice's override is looked for, in order.
_CHAIN = {OPERATOR: (OPERATOR, EXPERT), EXPERT: (EXPERT,), NOVICE: (NOVICE,)}


def voice_of(level: str, *, operator: bool) -> str:
    if operator:
        return OPERATOR
    return level if level in (NOVICE, INTERMEDIATE, EXPERT) else INTERMEDIATE


def leveled(texts: Texts, key: str, voice: str) -> str:
    """The catalog key ``voice`` reads for ``key``: its override, else ``key``."""
    for level in _CHAIN.get(voice, ()):
        override = f"level.{level}.{key}"
        if texts.has(override):
            return override
    return key


def first_key(texts: Texts, keys: Sequence[str], voice: str) -> str:
    """The first of ``keys`` (most specific first) ``voice`` has an override for, else
    the first that exists; the last key when none does."""
    for level in _CHAIN.get(voice, ()):
        for key in keys:
            if texts.has(f"level.{level}.{key}"):
                return f"level.{level}.{key}"
    return next((key for key in keys if texts.has(key)), keys[-1])


def why(texts: Texts, names: Sequence[str], voice: str) -> list[str]:
    """A novice's explanations for the parts ``names`` (tools, own facts), each once."""
    if voice != NOVICE:
        return []
    lines: list[str] = []
    for name in dict.fromkeys(names):
        key = f"level.novice.why.{name}"
        if texts.has(key):
            lines.append(texts.text(key))
    return lines


def operator_footer(
    texts: Texts,
    incoming: Incoming,
    decision: DepthDecision,
    crew: Sequence[str],
    text: str,
) -> str:
    """The operator's technical voice under a reply: the trace code, intent, mode, crew
    and the classifier's reason. Empty for a farmer, and under no text."""
    if not (incoming.is_operator and text):
        return ""
    return texts.text(
        "level.operator_footer",
        code=incoming.trace_id[:8],
        intent=decision.intent,
        mode=decision.mode,
        crew=",".join(crew) or "-",
        reason=decision.reason[:60],
    )
