"""The crew as data: agents, tools, limits (``rules/agents.toml``) and the LLM prompts
(``rules/prompts.toml``). Loaded once by the factory (``CrewSpec.load``,
``Prompts.load``) and passed down; everything here is immutable."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field

from pipeline.rules import RULES_DIR
from pipeline.rules.schema import RulesError, RulesModel, load
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
        return load(path, _AgentsFile).runtime()


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
        raw = load(path, _PromptsFile)

        def both(table: dict[Language, _Prompt], part: str) -> dict[Language, str]:
            return {lang: getattr(table[lang], part) for lang in ("uk", "en")}

        return cls(
            light=both(raw.light, "system"),
            reflection_system=both(raw.reflection, "system"),
            reflection_user=both(raw.reflection, "user"),
            agronomy_system=both(raw.agronomy, "system"),
            agronomy_user=both(raw.agronomy, "user"),
            summary_system=both(raw.summary, "system"),
        )


class _Prompt(RulesModel):
    system: str
    user: str = ""


#: A prompt in both languages (a missing one is a missing key).
_Both = Annotated[dict[Language, _Prompt], Field(min_length=2)]


class _PromptsFile(RulesModel):
    version: int = 1
    light: _Both
    reflection: _Both
    agronomy: _Both
    summary: _Both


class _LimitsTable(RulesModel):
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


class _AgentTable(RulesModel):
    role: str
    goal: str
    backstory: str
    tools: tuple[str, ...] = ()
    format: str = "short"

    def runtime(self, name: str) -> AgentSpec:
        return AgentSpec(
            name, self.role, self.goal, self.backstory.strip(), self.tools, self.format
        )


class _TaskTable(RulesModel):
    description: str
    expected_output: str

    def runtime(self) -> TaskTemplate:
        return TaskTemplate(self.description.strip(), self.expected_output.strip())


class _ToolTable(RulesModel):
    description: str


class _AgentsFile(RulesModel):
    version: int = 1
    limits: _LimitsTable = _LimitsTable()
    stepan: _AgentTable
    task: _TaskTable
    consolidate: _TaskTable
    agents: dict[str, _AgentTable]
    tools: dict[str, _ToolTable]

    def runtime(self) -> CrewSpec:
        agents = {name: spec.runtime(name) for name, spec in self.agents.items()}
        if set(agents) != set(CREW_NAMES):
            raise _problem("agents", f"must define exactly {CREW_NAMES}, got {sorted(agents)}")
        descriptions = {name: spec.description for name, spec in self.tools.items()}
        for spec in agents.values():
            missing = [tool for tool in spec.tools if tool not in descriptions]
            if missing:
                raise _problem(f"agents.{spec.name}", f"names undescribed tools {missing}")
        return CrewSpec(
            limits=Limits(**self.limits.model_dump()),
            stepan=self.stepan.runtime("stepan"),
            agents=agents,
            tool_descriptions=descriptions,
            handoff=self.task.runtime(),
            consolidate=self.consolidate.runtime(),
        )


def _problem(where: str, what: str) -> RulesError:
    return RulesError(AGENTS_FILE.name, where, what)
