"""Every rules file is read through one mechanism (pipeline/rules/schema.py), and a
broken file stops loading with one line naming the file and the key."""

from __future__ import annotations

import ast
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.classifier import DEFAULT_RULES, ClassifierRules
from pipeline.crew.words import ADVICE_FILE, COMPOSE_FILE, Words
from pipeline.grammar import DEFAULT_GRAMMAR, Grammar
from pipeline.knowledge.loader import KNOWLEDGE_DIR, load_knowledge
from pipeline.learning.evals import DEFAULT_EVALS, EvalRules
from pipeline.peers.directory import DEFAULT_PEERS, PeerDirectory
from pipeline.recall.rules import RECALL_RULES, RecallRules
from pipeline.rules.schema import RulesError

REPO = Path(__file__).resolve().parents[1]
MECHANISM = REPO / "pipeline" / "rules" / "schema.py"


def _imports_tomllib(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "tomllib" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "tomllib":
            return True
        if isinstance(node, ast.Name) and node.id == "tomllib":
            return True
    return False


def test_only_the_schema_module_reads_toml() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "pipeline").rglob("*.py"))
        if path != MECHANISM and _imports_tomllib(path)
    ]
    assert offenders == [], f"read rules files through pipeline.rules.schema: {offenders}"


def _raw(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


Loader = Callable[[Path], object]
LOADERS: dict[str, tuple[Path, Loader]] = {
    "grammar": (DEFAULT_GRAMMAR, Grammar.load),
    "classifier": (DEFAULT_RULES, ClassifierRules.load),
    "recall": (RECALL_RULES, RecallRules.load),
    "evals": (DEFAULT_EVALS, EvalRules.load),
    "peers": (DEFAULT_PEERS, lambda path: PeerDirectory.load(Grammar.load(), path)),
    "compose": (
        COMPOSE_FILE,
        lambda path: Words.load(Grammar.load(), compose=path, light=frozenset()),
    ),
    "advice": (
        ADVICE_FILE,
        lambda path: Words.load(Grammar.load(), advice=path, light=frozenset()),
    ),
}


def _broken(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _one_line(error: pytest.ExceptionInfo[ValueError]) -> str:
    message = str(error.value)
    assert isinstance(error.value, RulesError)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_invalid_toml_is_one_line_naming_the_file(tmp_path: Path, loader: str) -> None:
    source, load = LOADERS[loader]
    path = _broken(tmp_path, source.name, source.read_text(encoding="utf-8") + "\n[oops\n")
    with pytest.raises(ValueError) as error:
        load(path)
    message = _one_line(error)
    assert message.startswith(f"{source.name}") and "invalid TOML" in message


@pytest.mark.parametrize(
    ("loader", "edit", "expected"),
    [
        (
            "grammar",
            lambda raw: raw["grammar"].update(stem_min_len="four"),
            "grammar.stem_min_len: Input should be a valid integer",
        ),
        ("grammar", lambda raw: raw["grammar"].update(stem_len=4), "grammar.stem_len: unknown key"),
        (
            "grammar",
            lambda raw: raw["grammar"].pop("phrase_gap"),
            "grammar.phrase_gap: missing key",
        ),
        (
            "classifier",
            lambda raw: raw["intents"]["recording"].update(min_score="high"),
            "intents.recording.min_score: Input should be a valid integer",
        ),
        (
            "classifier",
            lambda raw: raw["intents"]["recording"].update(triger=["x"]),
            "intents.recording.triger: unknown key",
        ),
        ("classifier", lambda raw: raw.pop("confidence"), "confidence: missing key"),
        (
            "recall",
            lambda raw: raw["conversation"].update(window="twenty"),
            "conversation.window: Input should be a valid integer",
        ),
        ("recall", lambda raw: raw["status"].pop("crew"), "status.crew: missing key"),
        (
            "evals",
            lambda raw: raw["rules"][0].update(limits=3),
            "rules.0.limits: unknown key",
        ),
        (
            "peers",
            lambda raw: raw["peers"]["nutra"].update(time_budget_s="soon"),
            "peers.nutra.time_budget_s: Input should be a valid integer",
        ),
        ("peers", lambda raw: raw["settings"].pop("min_score"), "settings.min_score: missing key"),
        (
            "compose",
            lambda raw: raw["opener"].update(min_lines="three"),
            "opener.min_lines: Input should be a valid integer",
        ),
        ("compose", lambda raw: raw["chart"].update(phrase=["x"]), "chart.phrase: unknown key"),
        (
            "compose",
            lambda raw: raw["season"]["north"].pop("7"),
            "season.north: must name all twelve months",
        ),
        (
            "compose",
            lambda raw: raw["journal_view"].update(default_period="fortnight"),
            "journal_view.default_period: Input should be",
        ),
        (
            "advice",
            lambda raw: raw["topics"]["frost"].update(sensors="temperature"),
            "topics.frost.sensors: unknown key",
        ),
        ("advice", lambda raw: raw["topics"]["frost"].pop("terms"), "topics.frost.terms: missing"),
    ],
)
def test_a_broken_file_names_the_file_and_the_key(
    tmp_path: Path, loader: str, edit: Callable[[dict[str, Any]], object], expected: str
) -> None:
    source, load = LOADERS[loader]
    raw = _raw(source)
    edit(raw)
    path = _broken(tmp_path, source.name, _dumps(raw))
    with pytest.raises(ValueError) as error:
        load(path)
    message = _one_line(error)
    assert message.startswith(source.name), message
    assert expected in message, message


def _dumps(raw: dict[str, Any]) -> str:
    """A minimal TOML writer for the rules files' shapes (tables, arrays, scalars)."""
    lines: list[str] = []
    _table(raw, (), lines)
    return "\n".join(lines) + "\n"


def _table(table: dict[str, Any], prefix: tuple[str, ...], lines: list[str]) -> None:
    subtables = {k: v for k, v in table.items() if isinstance(v, dict)}
    arrays = {
        k: v
        for k, v in table.items()
        if isinstance(v, list) and v and all(isinstance(item, dict) for item in v)
    }
    if prefix and len(subtables) + len(arrays) < len(table):
        lines.append(f"[{'.'.join(_key(p) for p in prefix)}]")
    for key, value in table.items():
        if key not in subtables and key not in arrays:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in subtables.items():
        _table(value, (*prefix, key), lines)
    for key, items in arrays.items():
        for item in items:
            lines.append(f"[[{'.'.join(_key(p) for p in (*prefix, key))}]]")
            for inner, value in item.items():
                lines.append(f"{_key(inner)} = {_value(value)}")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else f'"{key}"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def test_a_cross_check_speaks_the_same_way() -> None:
    raw = _raw(DEFAULT_RULES)
    raw["intents"]["recording"]["requires_any"] = ["@no_such_lexicon"]
    with pytest.raises(RulesError) as error:
        ClassifierRules.from_mapping(raw)
    assert str(error.value).startswith("classifier.toml: intents.recording: ")
    assert "unknown requirement '@no_such_lexicon'" in str(error.value)


@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        (
            "questions.toml",
            lambda raw: raw["settings"].update(max_cards="three"),
            "settings.max_cards: Input should be a valid integer",
        ),
        (
            "questions.toml",
            lambda raw: raw["topics"]["frost"].update(wea=["x"]),
            "topics.frost.wea: unknown key",
        ),
        (
            "zones.toml",
            lambda raw: next(iter(raw["oblasts"].values())).update(zones="steppe"),
            "unknown key",
        ),
        ("zones.toml", lambda raw: raw.pop("version"), "version: missing key"),
        (
            "sources.toml",
            lambda raw: next(iter(raw["sources"].values())).update(year="soon"),
            "Input should be a valid integer",
        ),
    ],
)
def test_a_broken_knowledge_file_names_the_file_and_the_key(
    tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], object], expected: str
) -> None:
    directory = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE_DIR, directory)
    raw = _raw(directory / name)
    edit(raw)
    (directory / name).write_text(_dumps(raw), encoding="utf-8")
    with pytest.raises(ValueError) as error:
        load_knowledge(directory, units=(), crop_ids=())
    message = _one_line(error)
    assert message.startswith(name), message
    assert expected in message, message
