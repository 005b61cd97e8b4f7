"""The conversation summaries on /me (the newest few; the rest are counted)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.farm.localtime import local_time
from pipeline.language.texts import Texts
from pipeline.recall.conversations import SummaryView

#: /me is one Telegram message: the newest summaries only.
SHOWN_ON_ME = 5


def summaries_block(views: Sequence[SummaryView], timezone: str, texts: Texts) -> str:
    if not views:
        return texts.text("recall.me_none")
    items = []
    for view in views[:SHOWN_ON_ME]:
        lines = view.text.splitlines() or [""]
        if view.source != "extractive":
            # The extracted summary starts with its date; an LLM's may not.
            lines[0] = f"{local_time(view.period_end, timezone):%d.%m}: {lines[0]}"
        items.append("• " + "\n  ".join(lines))
    if len(views) > SHOWN_ON_ME:
        items.append(texts.text("recall.me_more", count=len(views) - SHOWN_ON_ME))
    return "\n".join((texts.text("recall.me_header"), *items))
