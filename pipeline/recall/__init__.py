"""What Stepan recalls between messages: the section-9 shortcuts and the
conversation memory (issue 11 points 4 and 5).

``Recall`` is what the pipeline holds; its stages (pipeline/turn/stages/answers.py)
first try a shortcut on a deep request; otherwise they end the conversations that
are over (silence, another subject), hand the newest summaries to the deep path
(prompts and the composer's context) and keep the answer for the next shortcut.
"""

from __future__ import annotations

from pipeline.recall.conversations import Conversations, PromptMemory, SummaryView
from pipeline.recall.rules import RecallRules
from pipeline.recall.shortcuts import Shortcuts
from pipeline.types import DepthDecision

__all__ = [
    "Conversations",
    "PromptMemory",
    "Recall",
    "RecallRules",
    "Shortcuts",
    "SummaryView",
]


class Recall:
    def __init__(self, shortcuts: Shortcuts, conversations: Conversations) -> None:
        self.shortcuts = shortcuts
        self.conversations = conversations

    def route(self, text: str, decision: DepthDecision) -> DepthDecision:
        return self.shortcuts.route(text, decision)
