"""The reply language is decided once per update (issue 24 point 3): whoever speaks
takes one ``Texts`` (pipeline/language/texts.py, a catalog bound to that language),
never the pair ``catalog: Catalog, lang: Language`` threaded through every call.

An ast scan of bot/ and pipeline/: no function or method has both a parameter
annotated ``Catalog`` and one annotated ``Language`` (``| None`` included).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "pipeline")

#: Files (or folders, ending in "/") that may still take the pair: none.
ALLOWED: frozenset[str] = frozenset()


def _names(annotation: ast.expr | None) -> set[str]:
    """What a parameter is annotated as: ``Catalog | None`` -> {Catalog, None};
    ``Optional[Language]`` -> {Language}. A type that only holds one
    (``Mapping[Language, str]``) is not one."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        # A string annotation ("Catalog") reads like the name it quotes.
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return set()
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _names(annotation.left) | _names(annotation.right)
    if isinstance(annotation, ast.Subscript) and _names(annotation.value) & {"Optional", "Union"}:
        inner = annotation.slice
        items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return set().union(*(_names(item) for item in items))
    if isinstance(annotation, ast.Name):
        return {annotation.id}
    if isinstance(annotation, ast.Attribute):
        return {annotation.attr}
    return set()


def pair_takers(source: str) -> list[tuple[int, str]]:
    """(line, name) of each function in ``source`` taking a Catalog and a Language."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        kinds = [_names(param.annotation) for param in params]
        if any("Catalog" in k for k in kinds) and any("Language" in k for k in kinds):
            found.append((node.lineno, node.name))
    return sorted(found)


def _allowed(relative: str) -> bool:
    return any(
        relative.startswith(entry) if entry.endswith("/") else relative == entry
        for entry in ALLOWED
    )


def _sources() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def test_no_function_threads_catalog_and_language() -> None:
    offenders = [
        f"{relative}:{line} {name}"
        for relative, path in _sources()
        if not _allowed(relative)
        for line, name in pair_takers(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], (
        "take one `texts: Texts` (pipeline/language/texts.py) instead of "
        "`catalog: Catalog, lang: Language`:\n" + "\n".join(offenders)
    )


def test_the_allow_list_names_files_that_exist() -> None:
    for entry in ALLOWED:
        assert (ROOT / entry).exists(), f"{entry} is gone: drop it from ALLOWED"


def test_the_scan_sees_every_spelling_of_the_pair() -> None:
    source = """
def plain(catalog: Catalog, lang: Language) -> str: ...
async def optional(x: int, *, catalog: Catalog | None = None, lang: "Language" = "uk"): ...
class Service:
    def method(self, lang: Language, catalog: language.Catalog) -> None: ...
def bound(texts: Texts, lang: Language) -> None: ...
def held(catalog: Catalog, prompts: Mapping[Language, str]) -> None: ...
def old(catalog: Optional[Catalog], lang: Union[Language, None]) -> None: ...
def only_catalog(catalog: Catalog) -> None: ...
"""
    assert [name for _, name in pair_takers(source)] == ["plain", "optional", "method", "old"]
