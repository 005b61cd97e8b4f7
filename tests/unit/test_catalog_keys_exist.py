"""Every catalog key the code names literally exists in both catalogs: a missing key
reaches a person as the key itself («plural.messages»)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO
from tests.shared import catalog

CATALOG = catalog()
SECTIONS = {key.split(".", 1)[0] for key in CATALOG.keys("uk")}


def _literal_keys() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for folder in ("bot", "pipeline"):
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                    continue
                value = node.value
                parts = value.split(".")
                if len(parts) < 2 or parts[0] not in SECTIONS or value.endswith(".toml"):
                    continue
                if all(part and (part.replace("_", "").isalnum()) for part in parts):
                    found.append((str(Path(path).relative_to(REPO)), value))
    return found


def test_literal_keys_are_in_both_catalogs() -> None:
    keys = _literal_keys()
    assert len(keys) > 200
    missing = [
        (path, key)
        for path, key in keys
        if not (CATALOG.has("uk", key) and CATALOG.has("en", key))
        # A prefix completed at run time (f"terms.kind_{kind}", "me.sensors" + "_none").
        and not any(k.startswith(key) for k in CATALOG.keys("uk"))
    ]
    assert missing == []
