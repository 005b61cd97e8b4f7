"""Where the last talk on this subject stopped, in an offline reply (issue 11 point 5).

With an LLM the summaries window goes into the prompts after the style prefix
(``pipeline/recall/prompt.py``). The offline composer has no prompt: its context is
the reply itself. When a message opens a new conversation and the window holds an
earlier one on the same subject (``PromptMemory.related``), the reply says, after
the opener (the profile's part), what that summary holds. The replies that continue
the conversation do not repeat it, and a talk on another subject is not brought up.
"""

from __future__ import annotations

from pipeline.crew.context import RunContext
from pipeline.replies.voice import why

#: The summary's lines read as one paragraph; a line without an end gets a full stop.
_ENDS = (".", "!", "?", "…")


def recall_note(ctx: RunContext) -> str | None:
    """The related summary in the reader's voice (a novice also reads why Stepan keeps
    them), or None."""
    if not ctx.recalled:
        return None
    lines = [" ".join(line.split()) for line in ctx.recalled.splitlines()]
    summary = " ".join(line if line.endswith(_ENDS) else f"{line}." for line in lines if line)
    if not summary:
        return None
    note = ctx.text_of("compose.recall", summary=summary)
    return "\n".join([note, *why(ctx.texts, ["recall"], ctx.voice)])
