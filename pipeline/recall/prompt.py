"""The conversation summaries as a block of an LLM's system prompt."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.language.texts import Texts


def recall_block(lines: Sequence[str], texts: Texts) -> str:
    """The newest summaries under a header; "" when there are none."""
    if not lines:
        return ""
    body = "\n".join("- " + "; ".join(text.splitlines()) for text in lines)
    return f"{texts.text('recall.prompt_header')}\n{body}"
