"""One-pass reflection (seed 3.4): make an answer fit the person before it is sent.

Light answers get rule-based clean-up (``reflect``). Deep answers also get one LLM
pass (``reflect_deep``) when an LLM is configured. The guard against re-entry is a
ContextVar: the seed's module-level bool would, in async code, make every other chat
skip reflection while one chat reflects. Any failure returns the original answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar

from pipeline.profiles import UserProfile

logger = logging.getLogger(__name__)

BRIEF_LIMIT = 500
BRIEF_SENTENCES = 3
#: A revision may not grow the answer beyond this (the pass simplifies and shortens).
DEEP_MAX_GROWTH = 1.5
DEEP_MAX_EXTRA_CHARS = 200
DEEP_TIMEOUT_S = 15.0

#: (system prompt, user prompt) -> the model's text.
Complete = Callable[[str, str], Awaitable[str]]

_reflecting: ContextVar[bool] = ContextVar("stepan_reflecting", default=False)

# Each starts with a lookahead of the characters its match can start with: the regex
# engine then skips the rest of a (Cyrillic) reply at once (pipeline/rules/evals.toml).
_UUID = re.compile(
    r"(?=[0-9a-f])\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b",
    re.IGNORECASE,
)
_TRACE = re.compile(
    r"(?=[\(\[trs])"
    r"[\(\[]?\b(?:trace[_ -]?id|request[_ -]?id|span[_ -]?id|trace)\s*[:=]\s*[\w.-]+[\)\]]?",
    re.IGNORECASE,
)
_JSON_START = re.compile(r"[{\[]")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")


def reflect(text: str, profile: UserProfile, trace_id: str) -> str:
    """Return the answer adapted to ``profile``; the original on any error."""
    if _reflecting.get():
        logger.warning("reflection: recursion guard active, skipping trace=%s", trace_id)
        return text
    token = _reflecting.set(True)
    try:
        return _reflect_rules(text, profile)
    except Exception:
        logger.exception("reflection failed trace=%s", trace_id)
        return text
    finally:
        _reflecting.reset(token)


async def reflect_deep(
    text: str,
    profile: UserProfile,
    trace_id: str,
    *,
    complete: Complete,
    system: str,
    template: str,
    labels: Mapping[str, str] | None = None,
    timeout_s: float = DEEP_TIMEOUT_S,
) -> str:
    """One LLM pass over a deep answer (seed 3.4 prompt in ``template``, with
    ``{expertise_level}``, ``{preferred_style}`` and ``{response}``); the original on
    any error, an empty or runaway revision, or re-entry."""
    if _reflecting.get():
        logger.warning("reflection: recursion guard active, skipping trace=%s", trace_id)
        return text
    token = _reflecting.set(True)
    try:
        names = labels or {}
        prompt = template.format(
            expertise_level=names.get("expertise_level", profile.expertise_level),
            preferred_style=names.get("preferred_style", profile.preferred_style),
            response=text,
        )
        revised = (await asyncio.wait_for(complete(system, prompt), timeout_s)).strip()
        if not revised or len(revised) > len(text) * DEEP_MAX_GROWTH + DEEP_MAX_EXTRA_CHARS:
            logger.info("reflection: revision rejected (%d chars) trace=%s", len(revised), trace_id)
            return text
        return revised
    except Exception:
        logger.warning("reflection: deep pass failed trace=%s", trace_id, exc_info=True)
        return text
    finally:
        _reflecting.reset(token)


def is_reflecting() -> bool:
    return _reflecting.get()


def _reflect_rules(text: str, profile: UserProfile) -> str:
    cleaned = strip_identifiers(humanize_json(text))
    if profile.preferred_style == "brief" and len(cleaned) > BRIEF_LIMIT:
        cleaned = first_sentences(cleaned, BRIEF_SENTENCES)
    return cleaned or text


def first_sentences(text: str, count: int) -> str:
    sentences = _SENTENCE_END.split(text.strip())
    return " ".join(sentences[:count]).strip()


def strip_identifiers(text: str) -> str:
    """Remove uuids and trace ids: they mean nothing to a farmer."""
    text = _TRACE.sub("", text)
    text = _UUID.sub("", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _SPACES.sub(" ", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def humanize_json(text: str) -> str:
    """Replace JSON objects/arrays embedded in the text by ``key: value`` lines."""
    decoder = json.JSONDecoder()
    out: list[str] = []
    copied = 0  # text[:copied] is in ``out``
    for start in _JSON_START.finditer(text):
        index = start.start()
        if index < copied:
            continue  # inside a JSON value already replaced
        try:
            value, end = decoder.raw_decode(text, index)
        except ValueError:
            continue
        if isinstance(value, dict | list) and value:
            out += (text[copied:index], _render(value))
            copied = end
    if not out:
        return text
    out.append(text[copied:])
    return "".join(out)


def _render(value: object) -> str:
    if isinstance(value, dict):
        parts = [f"{_label(key)}: {_render(item)}" for key, item in value.items()]
        return "; ".join(part for part in parts if not part.endswith(": "))
    if isinstance(value, list):
        return ", ".join(_render(item) for item in value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "✓" if value else "✗"  # language-neutral: no catalog here
    return str(value)


def _label(key: str) -> str:
    return str(key).lstrip("_").replace("_", " ")
