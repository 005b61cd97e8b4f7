"""The rule sets the pipeline reads, loaded once and passed down.

``bot/factory.py`` loads a ``Rulebook`` when it builds a pipeline; tests load one
per session and hand it to every pipeline they build, and a test that needs other
rules builds its own (``dataclasses.replace``) instead of patching a module.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.classifier import Classifier
from pipeline.crew.config import CrewSpec, Prompts


@dataclass(frozen=True, slots=True)
class Rulebook:
    classifier: Classifier
    #: The crew as data: agents, tools, limits (rules/agents.toml).
    crew: CrewSpec
    #: The LLM prompts (rules/prompts.toml).
    prompts: Prompts

    @classmethod
    def load(cls) -> Rulebook:
        return cls(classifier=Classifier.from_file(), crew=CrewSpec.load(), prompts=Prompts.load())
