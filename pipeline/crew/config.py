"""The crew as data: agents, tools, limits (``rules/agents.toml``) and the LLM prompts
(``rules/prompts.toml``). Loaded once by the factory (``CrewSpec.load``,
``Prompts.load``) and passed down; everything here is immutable."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.rules import RULES_DIR
from pipeline.types import CREW_NAMES, Language

RULES = RULES_DIR
AGENTS_FILE = RULES / "agents.toml"
PROMPTS_FILE = RULES / "prompts.toml"


@dataclass(frozen=True, slots=True)
class Limits:
    agent_timeout_s: float = 20.0
    stepan_timeout_s: float = 15.0
    reflection_timeout_s: float = 8.0
    light_timeout_s: float = 8.0
    tool_timeout_s: float = 20.0
    llm_request_timeout_s: float = 15.0
    retries: int = 2
    retry_backoff_s: float = 0.5
    max_iter: int = 3
    max_parallel_agents: int = 5
    worker_threads: int = 8
    reflect: bool = True

    @classmethod
    def from_toml(cls, raw: Mapping[str, Any]) -> Limits:
        known = set(cls.__dataclass_fields__)
        unknown = set(raw) - known
        if unknown:
            raise ValueError(f"agents.toml [limits]: unknown keys {sorted(unknown)}")
        return cls(**dict(raw))


@dataclass(frozen=True, slots=True)
class AgentSpec:
    name: str
    role: str
    goal: str
    backstory: str
    tools: tuple[str, ...]
    format: str = "short"


@dataclass(frozen=True, slots=True)
class TaskTemplate:
    description: str
    expected_output: str


@dataclass(frozen=True, slots=True)
class CrewSpec:
    limits: Limits
    stepan: AgentSpec
    agents: Mapping[str, AgentSpec]
    tool_descriptions: Mapping[str, str]
    handoff: TaskTemplate
    consolidate: TaskTemplate

    def agent(self, name: str) -> AgentSpec:
        return self.agents[name]

    @classmethod
    def load(cls, path: Path = AGENTS_FILE) -> CrewSpec:
        with path.open("rb") as handle:
            return parse_crew(tomllib.load(handle))


@dataclass(frozen=True, slots=True)
class Prompts:
    light: Mapping[Language, str]
    reflection_system: Mapping[Language, str]
    reflection_user: Mapping[Language, str]
    #: Grounded agronomy answers (pipeline/agronomy/grounded.py).
    agronomy_system: Mapping[Language, str]
    agronomy_user: Mapping[Language, str]
    #: A finished conversation compacted into lines (pipeline/recall/compact.py).
    summary_system: Mapping[Language, str]

    @classmethod
    def load(cls, path: Path = PROMPTS_FILE) -> Prompts:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
        return cls(
            light={lang: str(raw["light"][lang]["system"]) for lang in ("uk", "en")},
            reflection_system={
                lang: str(raw["reflection"][lang]["system"]) for lang in ("uk", "en")
            },
            reflection_user={lang: str(raw["reflection"][lang]["user"]) for lang in ("uk", "en")},
            agronomy_system={lang: str(raw["agronomy"][lang]["system"]) for lang in ("uk", "en")},
            agronomy_user={lang: str(raw["agronomy"][lang]["user"]) for lang in ("uk", "en")},
            summary_system={lang: str(raw["summary"][lang]["system"]) for lang in ("uk", "en")},
        )


def _agent(name: str, raw: Mapping[str, Any]) -> AgentSpec:
    return AgentSpec(
        name=name,
        role=str(raw["role"]),
        goal=str(raw["goal"]),
        backstory=str(raw["backstory"]).strip(),
        tools=tuple(str(tool) for tool in raw.get("tools", ())),
        format=str(raw.get("format", "short")),
    )


def _template(raw: Mapping[str, Any]) -> TaskTemplate:
    return TaskTemplate(str(raw["description"]).strip(), str(raw["expected_output"]).strip())


def parse_crew(raw: Mapping[str, Any]) -> CrewSpec:
    agents = {name: _agent(name, spec) for name, spec in raw["agents"].items()}
    if set(agents) != set(CREW_NAMES):
        raise ValueError(f"agents.toml must define exactly {CREW_NAMES}, got {sorted(agents)}")
    descriptions = {name: str(spec["description"]) for name, spec in raw["tools"].items()}
    for spec in agents.values():
        missing = [tool for tool in spec.tools if tool not in descriptions]
        if missing:
            raise ValueError(f"agents.toml: agent {spec.name} names undescribed tools {missing}")
    return CrewSpec(
        limits=Limits.from_toml(raw.get("limits", {})),
        stepan=_agent("stepan", raw["stepan"]),
        agents=agents,
        tool_descriptions=descriptions,
        handoff=_template(raw["task"]),
        consolidate=_template(raw["consolidate"]),
    )
