"""The modules of kgbench.rdb in layers (issue 40; the package docstring of kgbench.rdb):
no private name (``_x``) imported from another module, the SQL translators as plan ->
analysis -> two renderers that do not import each other, and nothing of kgbench.evaluate.

Imports are read from the source (``ast``), those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import kgbench.rdb

RDB = Path(kgbench.rdb.__file__).parent

#: For each translator module, the kgbench.rdb modules it may import (its layers below).
TRANSLATOR_LAYERS = {
    "plan": {"schema"},
    "analyze": {"plan", "schema", "convert"},
    "sql2sparql": {"plan", "analyze", "naming", "schema"},
    "sql2cypher": {"plan", "analyze", "naming", "schema"},
}


def imports(path: Path) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` of every ``from M import name`` and ``import M`` (name ``""``)
    in ``path``, relative imports resolved against kgbench.rdb."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = ["kgbench", "rdb"][: 3 - node.level]
                module = ".".join([*parts, module] if module else parts)
            out.extend((module, a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend((a.name, "", node.lineno) for a in node.names)
    return out


def private_imports(path: Path) -> list[str]:
    """The ``module.name`` of each private name ``path`` imports from a kgbench module (the
    binding ``kgbench._core`` excepted), with its line."""
    return [
        f"{path.name}:{line}: {module}.{name}"
        for module, name, line in imports(path)
        if module.startswith("kgbench.")
        and not module.startswith("kgbench._core")
        and name.startswith("_")
        and not name.startswith("__")
    ]


def test_no_private_name_is_imported_across_rdb_modules() -> None:
    modules = sorted(RDB.glob("*.py"))
    assert len(modules) >= 12
    found = [hit for path in modules for hit in private_imports(path)]
    assert found == []


def test_the_private_import_check_finds_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from kgbench.rdb.convert import _plan, column_kind\n"
        "def f():\n    from .naming import _encode\n"
        "from kgbench._core import rdb as _rdb\n",
        encoding="utf-8",
    )
    assert private_imports(bad) == [
        "bad.py:1: kgbench.rdb.convert._plan",
        "bad.py:3: kgbench.rdb.naming._encode",
    ]


def test_translators_import_only_their_lower_layers() -> None:
    for name, allowed in TRANSLATOR_LAYERS.items():
        used = {
            module.removeprefix("kgbench.rdb.")
            for module, _, _ in imports(RDB / f"{name}.py")
            if module.startswith("kgbench.rdb.")
        }
        assert used <= allowed, f"kgbench.rdb.{name} imports {sorted(used - allowed)}"
    # the renderers are independent of each other, and both use the one analysis
    assert "sql2cypher" not in TRANSLATOR_LAYERS["sql2sparql"]
    for renderer in ("sql2sparql", "sql2cypher"):
        used = {m for m, _, _ in imports(RDB / f"{renderer}.py")}
        assert {"kgbench.rdb.plan", "kgbench.rdb.analyze"} <= used


def test_rdb_imports_nothing_from_evaluate() -> None:
    found = [
        f"{path.name}:{line}: {module}"
        for path in sorted(RDB.glob("*.py"))
        for module, _, line in imports(path)
        if module == "kgbench.evaluate" or module.startswith("kgbench.evaluate.")
    ]
    assert found == []
