"""What Stepan asks of an LLM for a piece of text: a system prompt and a user message
in, the completion out (pipeline/crew/llm.py's ``LLMClient`` is the one in service;
tests pass a fake). A leaf module, so the light path, recall's compaction and the
grounded writer can all name it without importing each other."""

from __future__ import annotations

from typing import Protocol

__all__ = ["TextCompleter"]


class TextCompleter(Protocol):
    async def complete(self, system: str, user: str, *, timeout_s: float) -> str: ...
