"""The conversation summaries as a block of an LLM's system prompt."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.language.catalog import Catalog
from pipeline.types import Language


def recall_block(lines: Sequence[str], catalog: Catalog, lang: Language) -> str:
    """The newest summaries under a header; "" when there are none."""
    if not lines:
        return ""
    body = "\n".join("- " + "; ".join(text.splitlines()) for text in lines)
    return f"{catalog.text(lang, 'recall.prompt_header')}\n{body}"
