"""Building the recall services from the rulebook (``bot/wiring/factory.py`` calls this)."""

from __future__ import annotations

from db.uow import Database
from pipeline.clock import Clock, utcnow
from pipeline.crew.completer import TextCompleter
from pipeline.language.catalog import Catalog
from pipeline.memory import Memory
from pipeline.recall import Recall
from pipeline.recall.compact import Compactor
from pipeline.recall.conversations import Conversations
from pipeline.recall.shortcuts import Shortcuts
from pipeline.rulebook import Rulebook


def build_recall(
    rules: Rulebook,
    catalog: Catalog,
    db: Database,
    memory: Memory,
    llm: TextCompleter | None,
    clock: Clock = utcnow,
) -> Recall:
    """The shortcuts and the conversation memory (docs/memory.md); the LLM writes the
    summaries when one is configured, else they are extracted."""
    talk = rules.recall.conversation
    compactor = Compactor(
        catalog,
        talk,
        llm,
        rules.prompts.summary_system if llm is not None else None,
        stopwords=rules.recall.subject.stopwords,
    )
    conversations = Conversations(
        db, talk, compactor, memory.summaries, memory.editor, rules.vocabulary, clock=clock
    )
    return Recall(Shortcuts(db, catalog, rules.recall), conversations)
