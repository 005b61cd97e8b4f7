"""Stepan's agronomy knowledge: sourced cards as data, an FTS5 index over them, a
question reader and an answer composer that needs no LLM (docs/knowledge.md)."""

from pipeline.knowledge.base import KnowledgeBase, Lookup
from pipeline.knowledge.compose import Answer, Composer, FarmFacts
from pipeline.knowledge.loader import KNOWLEDGE_DIR, KnowledgeData, load_knowledge
from pipeline.knowledge.model import ZONES, Card, Source, Value

__all__ = [
    "KNOWLEDGE_DIR",
    "ZONES",
    "Answer",
    "Card",
    "Composer",
    "FarmFacts",
    "KnowledgeBase",
    "KnowledgeData",
    "Lookup",
    "Source",
    "Value",
    "load_knowledge",
]
