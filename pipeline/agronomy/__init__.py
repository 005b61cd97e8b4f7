"""Agronomy questions in the conversation (docs/knowledge.md): the knowledge base's
answer with the farm's own data (region, crops, fields, soil temperature, the
previous question's crop), honest when unsure."""

from pipeline.agronomy.advisor import AdviceRequest, Advisor, wants_advice
from pipeline.agronomy.facts import FarmContext, read_farm_context

__all__ = ["AdviceRequest", "Advisor", "FarmContext", "read_farm_context", "wants_advice"]
